// Package plainjson writes JSON as encoding/json does but without HTML
// escaping, so keys such as STU#a91 and values or expressions with <, > or &
// read as written: adjl's output is for terminals and files, never HTML.
package plainjson

import (
	"bytes"
	"encoding/json"
)

// Marshal is json.Marshal without HTML escaping; like json.Marshal, the
// result ends without a newline.
func Marshal(v any) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimRight(b.Bytes(), "\n"), nil
}
