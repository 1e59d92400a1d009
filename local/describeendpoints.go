package local

// describeEndpoints answers SDKs that use endpoint discovery: the engine is
// its own and only endpoint.
func (e *Engine) describeEndpoints(body []byte) ([]byte, error) {
	var in struct{}
	if err := decodeRequest(body, &in); err != nil {
		return nil, err
	}
	return []byte(`{"Endpoints":[{"Address":"dynamodb.` + region + `.amazonaws.com","CachePeriodInMinutes":1440}]}`), nil
}
