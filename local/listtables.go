package local

type listTablesIn struct {
	ExclusiveStartTableName string
	Limit                   *int
}

type listTablesOut struct {
	TableNames             []string
	LastEvaluatedTableName string `json:",omitempty"`
}

// listTables is ListTables: names in order, paged by
// ExclusiveStartTableName and Limit (1 to 100).
func (e *Engine) listTables(in *listTablesIn) ([]byte, error) {
	limit := 100
	if in.Limit != nil {
		if *in.Limit < 1 || *in.Limit > 100 {
			op := "greater than or equal to 1"
			if *in.Limit > 100 {
				op = "less than or equal to 100"
			}
			return nil, validationf("1 validation error detected: Value '%d' at 'limit' failed to satisfy constraint: Member must have value %s", *in.Limit, op)
		}
		limit = *in.Limit
	}
	out := listTablesOut{TableNames: []string{}}
	names := e.tableNames()
	for i, n := range names {
		if in.ExclusiveStartTableName != "" && n <= in.ExclusiveStartTableName {
			continue
		}
		out.TableNames = append(out.TableNames, n)
		if len(out.TableNames) == limit {
			if i < len(names)-1 {
				out.LastEvaluatedTableName = n
			}
			break
		}
	}
	return encodeResponse(out)
}
