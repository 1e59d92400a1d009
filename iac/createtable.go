package iac

import (
	"bytes"
	"encoding/json"

	"github.com/adjl/adjl/schema"
	"github.com/adjl/adjl/tabledef"
)

// CreateTableJSON is the CreateTable request as JSON, accepted as is by
// `aws dynamodb create-table --cli-input-json file://FILE` (and by any
// SDK's CreateTable). TTL and point-in-time recovery are separate requests:
// FollowUp lists them.
func CreateTableJSON(s *schema.Schema) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(tableOf(tabledef.CreateTableInput(s))); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}
