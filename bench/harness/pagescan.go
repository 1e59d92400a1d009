package main

import (
	"errors"
	"fmt"
)

// pageScan is what scanPage found in a Query response.
type pageScan struct {
	Count   int  // the top-level "Count"
	Items   int  // objects in the top-level "Items" array, counted one by one
	HasNext bool // a top-level "LastEvaluatedKey" object is present
}

// scanPage checks a Query response in one pass over its bytes: the body must
// be a single JSON object whose brackets balance and whose strings end; it
// reads the top-level Count, counts the objects of the top-level Items array
// and notes a LastEvaluatedKey object. It is much cheaper than
// encoding/json (which costs the load generator about as much CPU per
// 100-item page as adjl spends serving it) while still looking at every
// byte the server sent; it does not validate number or literal syntax.
func scanPage(b []byte) (pageScan, error) {
	var p pageScan
	var stack [64]byte
	depth := 0
	expectKey := false
	key := ""
	inItems := false
	count := -1
	i := 0
	for i < len(b) {
		c := b[i]
		switch c {
		case ' ', '\t', '\n', '\r', ',':
			if c == ',' && depth == 1 {
				expectKey = true
			}
			i++
			continue
		case '"':
			j := i + 1
			for j < len(b) && b[j] != '"' {
				if b[j] == '\\' {
					j++
				}
				j++
			}
			if j >= len(b) {
				return p, errors.New("malformed response: unterminated string")
			}
			if depth == 1 && expectKey {
				key = string(b[i+1 : j])
				expectKey = false
			}
			i = j + 1
			continue
		case ':':
			if depth == 1 && key == "Count" {
				k := i + 1
				for k < len(b) && b[k] == ' ' {
					k++
				}
				n, start := 0, k
				for k < len(b) && b[k] >= '0' && b[k] <= '9' {
					n = n*10 + int(b[k]-'0')
					k++
				}
				if k == start {
					return p, errors.New("malformed response: Count is not a number")
				}
				count = n
				i = k
				continue
			}
		case '{', '[':
			if depth == len(stack) {
				return p, errors.New("malformed response: nested too deeply")
			}
			if depth == 0 && (c != '{' || i != firstNonSpace(b)) {
				return p, errors.New("malformed response: not a single JSON object")
			}
			stack[depth] = c
			depth++
			switch {
			case depth == 1:
				expectKey = true
			case depth == 2 && key == "Items":
				inItems = c == '['
			case depth == 2 && key == "LastEvaluatedKey":
				p.HasNext = c == '{'
			case depth == 3 && inItems && c == '{':
				p.Items++
			}
		case '}', ']':
			open := byte('{')
			if c == ']' {
				open = '['
			}
			if depth == 0 || stack[depth-1] != open {
				return p, fmt.Errorf("malformed response: unbalanced %q at byte %d", c, i)
			}
			depth--
			if depth == 1 {
				inItems = false
			}
		default:
			if depth == 0 {
				return p, fmt.Errorf("malformed response: %q outside the object", c)
			}
		}
		i++
	}
	if depth != 0 || count < 0 {
		return p, fmt.Errorf("malformed response: %d unclosed brackets, Count present: %v", depth, count >= 0)
	}
	p.Count = count
	return p, nil
}

func firstNonSpace(b []byte) int {
	for i, c := range b {
		if c != ' ' && c != '\t' && c != '\n' && c != '\r' {
			return i
		}
	}
	return len(b)
}
