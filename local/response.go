package local

import (
	"encoding/json"
	"fmt"

	"github.com/adjl/adjl/local/internal/attr"
)

// response builds the small JSON bodies of the item operations.
type response struct{ b []byte }

func (r *response) field(name string) {
	if len(r.b) == 0 {
		r.b = append(r.b, '{')
	} else {
		r.b = append(r.b, ',')
	}
	r.b = append(r.b, '"')
	r.b = append(r.b, name...)
	r.b = append(r.b, '"', ':')
}

func (r *response) item(name string, it attr.Item) error {
	r.field(name)
	var err error
	r.b, err = it.AppendJSON(r.b)
	return err
}

func (r *response) capacity(mode string, c *capacity) {
	r.field("ConsumedCapacity")
	r.b = c.appendJSON(r.b, mode)
}

func (r *response) bytes() []byte {
	if len(r.b) == 0 {
		return []byte("{}")
	}
	return append(r.b, '}')
}

// encodeResponse marshals a response struct.
func encodeResponse(v any) ([]byte, error) {
	b, err := json.Marshal(v)
	if err != nil {
		return nil, fmt.Errorf("encode response: %w", err)
	}
	return b, nil
}
