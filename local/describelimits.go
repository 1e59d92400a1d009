package local

// describeLimits reports DynamoDB's default account quotas.
func (e *Engine) describeLimits(body []byte) ([]byte, error) {
	var in struct{}
	if err := decodeRequest(body, &in); err != nil {
		return nil, err
	}
	return []byte(`{"AccountMaxReadCapacityUnits":80000,"AccountMaxWriteCapacityUnits":80000,` +
		`"TableMaxReadCapacityUnits":40000,"TableMaxWriteCapacityUnits":40000}`), nil
}
