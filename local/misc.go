package local

func init() {
	operations["DescribeEndpoints"] = (*Engine).describeEndpoints
	operations["DescribeLimits"] = (*Engine).describeLimits
}

// describeEndpoints answers SDKs that use endpoint discovery: the engine is
// its own and only endpoint.
func (e *Engine) describeEndpoints(body []byte) ([]byte, error) {
	var in struct{}
	if err := decodeRequest(body, &in); err != nil {
		return nil, err
	}
	return []byte(`{"Endpoints":[{"Address":"dynamodb.` + region + `.amazonaws.com","CachePeriodInMinutes":1440}]}`), nil
}

// describeLimits reports DynamoDB's default account quotas.
func (e *Engine) describeLimits(body []byte) ([]byte, error) {
	var in struct{}
	if err := decodeRequest(body, &in); err != nil {
		return nil, err
	}
	return []byte(`{"AccountMaxReadCapacityUnits":80000,"AccountMaxWriteCapacityUnits":80000,` +
		`"TableMaxReadCapacityUnits":40000,"TableMaxWriteCapacityUnits":40000}`), nil
}
