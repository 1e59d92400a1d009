package local

import (
	"encoding/json"
	"errors"
	"fmt"

	"github.com/adjl/adjl/local/internal/attr"
)

// decodeRequest unmarshals a request body, turning malformed JSON into
// SerializationException and attribute value errors into ValidationException,
// as DynamoDB does. Top-level members are matched by their exact names
// (exactMembers).
func decodeRequest(body []byte, v any) error {
	if err := json.Unmarshal(exactMembers(body, v), v); err != nil {
		var ve *attr.ValidationError
		if errors.As(err, &ve) {
			return &apiError{Type: errValidation, Message: ve.Msg, value: ve}
		}
		var te *json.UnmarshalTypeError
		if errors.As(err, &te) {
			return &apiError{Type: errSerialization, Message: fmt.Sprintf("Unexpected value type in payload for field %s", te.Field)}
		}
		return &apiError{Type: errSerialization, Message: "Unable to parse request body: " + err.Error()}
	}
	return nil
}
