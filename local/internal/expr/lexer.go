package expr

import "unicode/utf8"

type tokKind uint8

const (
	tEOF tokKind = iota
	tIdent
	tName   // #name
	tValue  // :value
	tNumber // digits (list index)
	tEq
	tNe
	tLt
	tLe
	tGt
	tGe
	tPlus
	tMinus
	tLParen
	tRParen
	tLBracket
	tRBracket
	tDot
	tComma
	tIllegal
)

// token is a lexeme with its byte span in the source; spans let syntax
// errors quote the source the way DynamoDB does ("near: ...").
type token struct {
	kind       tokKind
	start, end int
}

// lex splits s into tokens. Characters that cannot start any token become
// tIllegal tokens so the parser reports them at the right position.
func lex(s string, toks []token) []token {
	i := 0
	for i < len(s) {
		c := s[i]
		start := i
		switch {
		case c == ' ' || c == '\t' || c == '\n' || c == '\r':
			i++
			continue
		case isIdentStart(c):
			i++
			for i < len(s) && isIdentPart(s[i]) {
				i++
			}
			toks = append(toks, token{tIdent, start, i})
			continue
		case c >= '0' && c <= '9':
			for i < len(s) && s[i] >= '0' && s[i] <= '9' {
				i++
			}
			toks = append(toks, token{tNumber, start, i})
			continue
		case c == '#' || c == ':':
			i++
			for i < len(s) && isIdentPart(s[i]) {
				i++
			}
			k := tName
			if c == ':' {
				k = tValue
			}
			if i == start+1 {
				k = tIllegal
			}
			toks = append(toks, token{k, start, i})
			continue
		}
		k := tIllegal
		i++
		switch c {
		case '=':
			k = tEq
		case '<':
			k = tLt
			if i < len(s) && s[i] == '>' {
				k, i = tNe, i+1
			} else if i < len(s) && s[i] == '=' {
				k, i = tLe, i+1
			}
		case '>':
			k = tGt
			if i < len(s) && s[i] == '=' {
				k, i = tGe, i+1
			}
		case '+':
			k = tPlus
		case '-':
			k = tMinus
		case '(':
			k = tLParen
		case ')':
			k = tRParen
		case '[':
			k = tLBracket
		case ']':
			k = tRBracket
		case '.':
			k = tDot
		case ',':
			k = tComma
		default:
			if c >= utf8.RuneSelf {
				_, size := utf8.DecodeRuneInString(s[start:])
				i = start + size
			}
		}
		toks = append(toks, token{k, start, i})
	}
	return append(toks, token{tEOF, len(s), len(s)})
}

func isIdentStart(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c == '_'
}

func isIdentPart(c byte) bool {
	return isIdentStart(c) || c >= '0' && c <= '9'
}

// equalFold compares an ASCII identifier with an upper-case keyword.
func equalFold(s, upper string) bool {
	if len(s) != len(upper) {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c >= 'a' && c <= 'z' {
			c -= 'a' - 'A'
		}
		if c != upper[i] {
			return false
		}
	}
	return true
}
