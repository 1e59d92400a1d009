package local

import (
	"encoding/json"
	"errors"
	"fmt"
	"unicode/utf8"

	"github.com/adjl/adjl/local/internal/attr"
)

// decodeRequest unmarshals a request body, turning malformed JSON into
// SerializationException and attribute value errors into ValidationException,
// as DynamoDB does.
func decodeRequest(body []byte, v any) error {
	if err := json.Unmarshal(body, v); err != nil {
		var ve *attr.ValidationError
		if errors.As(err, &ve) {
			return &apiError{Type: errValidation, Message: ve.Msg}
		}
		var te *json.UnmarshalTypeError
		if errors.As(err, &te) {
			return &apiError{Type: errSerialization, Message: fmt.Sprintf("Unexpected value type in payload for field %s", te.Field)}
		}
		return &apiError{Type: errSerialization, Message: "Unable to parse request body: " + err.Error()}
	}
	return nil
}

// encodeResponse marshals a response struct.
func encodeResponse(v any) ([]byte, error) {
	b, err := json.Marshal(v)
	if err != nil {
		return nil, fmt.Errorf("encode response: %w", err)
	}
	return b, nil
}

const hexDigits = "0123456789abcdef"

// appendJSONString appends s as a JSON string literal.
func appendJSONString[T string | []byte](b []byte, s T) []byte {
	b = append(b, '"')
	start := 0
	for i := 0; i < len(s); {
		c := s[i]
		if c >= 0x20 && c != '"' && c != '\\' && c < utf8.RuneSelf {
			i++
			continue
		}
		if c < utf8.RuneSelf {
			b = append(b, s[start:i]...)
			switch c {
			case '"', '\\':
				b = append(b, '\\', c)
			case '\n':
				b = append(b, '\\', 'n')
			case '\r':
				b = append(b, '\\', 'r')
			case '\t':
				b = append(b, '\\', 't')
			default:
				b = append(b, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xf])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(string(s[i:])) // no copy: conversion in a call argument
		if r == utf8.RuneError && size == 1 {
			b = append(b, s[start:i]...)
			b = append(b, `\ufffd`...)
			i += size
			start = i
			continue
		}
		if r == '\u2028' || r == '\u2029' {
			b = append(b, s[start:i]...)
			b = append(b, '\\', 'u', '2', '0', '2', hexDigits[r&0xf])
			i += size
			start = i
			continue
		}
		i += size
	}
	b = append(b, s[start:]...)
	return append(b, '"')
}
