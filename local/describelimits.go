package local

// describeLimits reports DynamoDB's default account quotas.
func (e *Engine) describeLimits(*struct{}) ([]byte, error) {
	return []byte(`{"AccountMaxReadCapacityUnits":80000,"AccountMaxWriteCapacityUnits":80000,` +
		`"TableMaxReadCapacityUnits":40000,"TableMaxWriteCapacityUnits":40000}`), nil
}
