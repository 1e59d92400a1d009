package partiql

import (
	"strconv"
	"strings"
	"unicode/utf8"
)

type tokKind uint8

const (
	tEOF       tokKind = iota
	tWord              // unquoted identifier or keyword
	tQuoted            // "identifier" (text is the unescaped name)
	tString            // 'string' (text is the unescaped value)
	tNumber            // numeric literal
	tParam             // ?
	tLParen            // (
	tRParen            // )
	tLBracket          // [
	tRBracket          // ]
	tLBrace            // {
	tRBrace            // }
	tLBag              // <<
	tRBag              // >>
	tComma             // ,
	tDot               // .
	tColon             // :
	tSemicolon         // ;
	tStar              // *
	tEq                // =
	tNe                // <> or !=
	tLt                // <
	tLe                // <=
	tGt                // >
	tGe                // >=
	tPlus              // +
	tMinus             // -
	tOp                // an operator DynamoDB does not support: / % ||
)

// token is one lexeme. text is the source text, except for quoted names and
// strings where it is the unescaped value; pos locates it for messages that
// say "at line:column:length".
type token struct {
	kind tokKind
	text string
	pos  Pos
}

// Pos is a token's place in the statement as DynamoDB reports it: line and
// column counted in characters from 1, and the token's length.
type Pos struct {
	Line, Col, Len int
}

// String renders the position the way DynamoDB's messages end: "1:52:6".
func (p Pos) String() string {
	return strconv.Itoa(p.Line) + ":" + strconv.Itoa(p.Col) + ":" + strconv.Itoa(p.Len)
}

// lexer splits a statement into tokens, skipping whitespace and comments.
type lexer struct {
	src       string
	i         int
	line, col int // of src[i]
}

// lex returns the tokens of src ending with tEOF, or a syntax error: an
// unterminated string, name or comment, a character no token starts with, or
// a number DynamoDB cannot represent. DynamoDB reports those with nothing
// after "can't be processed: ".
func lex(src string) ([]token, error) {
	l := &lexer{src: src, line: 1, col: 1}
	var toks []token
	for {
		t, err := l.next()
		if err != nil {
			return nil, err
		}
		toks = append(toks, t)
		if t.kind == tEOF {
			return toks, nil
		}
	}
}

// advance moves past n bytes, keeping line and column in characters.
func (l *lexer) advance(n int) {
	end := l.i + n
	for l.i < end {
		r, size := utf8.DecodeRuneInString(l.src[l.i:])
		l.i += size
		if r == '\n' {
			l.line++
			l.col = 1
		} else {
			l.col++
		}
	}
}

func (l *lexer) peekAt(k int) byte {
	if l.i+k < len(l.src) {
		return l.src[l.i+k]
	}
	return 0
}

func (l *lexer) skipSpace() error {
	for l.i < len(l.src) {
		c := l.src[l.i]
		switch {
		case c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v':
			l.advance(1)
		case c == '-' && l.peekAt(1) == '-':
			end := strings.IndexByte(l.src[l.i:], '\n')
			if end < 0 {
				end = len(l.src) - l.i
			}
			l.advance(end)
		case c == '/' && l.peekAt(1) == '*':
			end := strings.Index(l.src[l.i+2:], "*/")
			if end < 0 {
				return malformed("")
			}
			l.advance(end + 4)
		default:
			return nil
		}
	}
	return nil
}

func (l *lexer) next() (token, error) {
	if err := l.skipSpace(); err != nil {
		return token{}, err
	}
	start, line, col := l.i, l.line, l.col
	tok := func(k tokKind, n int) token {
		l.advance(n)
		return token{kind: k, text: l.src[start:l.i], pos: Pos{line, col, utf8.RuneCountInString(l.src[start:l.i])}}
	}
	if l.i >= len(l.src) {
		return token{kind: tEOF, pos: Pos{line, col, 0}}, nil
	}
	c := l.src[l.i]
	switch {
	case isWordStart(c):
		n := 1
		for l.i+n < len(l.src) && isWordPart(l.src[l.i+n]) {
			n++
		}
		return tok(tWord, n), nil
	case c >= '0' && c <= '9' || c == '.' && isDigit(l.peekAt(1)):
		n, err := l.number()
		if err != nil {
			return token{}, err
		}
		return tok(tNumber, n), nil
	case c == '"' || c == '\'':
		val, n, ok := quoted(l.src[l.i:], c)
		if !ok {
			return token{}, malformed("")
		}
		t := tok(tString, n)
		if c == '"' {
			t.kind = tQuoted
		}
		t.text = val
		return t, nil
	}
	two := ""
	if l.i+1 < len(l.src) {
		two = l.src[l.i : l.i+2]
	}
	switch two {
	case "<<":
		return tok(tLBag, 2), nil
	case ">>":
		return tok(tRBag, 2), nil
	case "<>", "!=":
		return tok(tNe, 2), nil
	case "<=":
		return tok(tLe, 2), nil
	case ">=":
		return tok(tGe, 2), nil
	case "||":
		return tok(tOp, 2), nil
	}
	if k, ok := singles[c]; ok {
		return tok(k, 1), nil
	}
	return token{}, malformed("")
}

// singles are the one-character tokens.
var singles = map[byte]tokKind{
	'(': tLParen, ')': tRParen, '[': tLBracket, ']': tRBracket, '{': tLBrace, '}': tRBrace,
	',': tComma, '.': tDot, ':': tColon, ';': tSemicolon, '*': tStar, '=': tEq, '<': tLt,
	'>': tGt, '+': tPlus, '-': tMinus, '?': tParam, '/': tOp, '%': tOp,
}

// number measures a numeric literal: digits with an optional fraction and
// exponent, or a fraction alone (.5). Like DynamoDB's parser it refuses an
// exponent, or a scale, that does not fit a 32-bit integer.
func (l *lexer) number() (int, error) {
	s := l.src[l.i:]
	n := 0
	for n < len(s) && isDigit(s[n]) {
		n++
	}
	frac := 0
	if n < len(s) && s[n] == '.' {
		n++
		for n < len(s) && isDigit(s[n]) {
			n++
			frac++
		}
	}
	if n < len(s) && (s[n] == 'e' || s[n] == 'E') {
		m := n + 1
		if m < len(s) && (s[m] == '+' || s[m] == '-') {
			m++
		}
		if m < len(s) && isDigit(s[m]) {
			for m < len(s) && isDigit(s[m]) {
				m++
			}
			exp, err := strconv.ParseInt(s[n+1:m], 10, 32)
			if err != nil || int64(frac)-exp > 1<<31-1 || int64(frac)-exp < -1<<31 {
				return 0, malformed("")
			}
			n = m
		}
	}
	return n, nil
}

// quoted reads a string or name opened by q, where a doubled q stands for
// one; it returns the value and the bytes consumed.
func quoted(s string, q byte) (string, int, bool) {
	var sb strings.Builder
	for i := 1; i < len(s); i++ {
		if s[i] != q {
			sb.WriteByte(s[i])
			continue
		}
		if i+1 < len(s) && s[i+1] == q {
			sb.WriteByte(q)
			i++
			continue
		}
		return sb.String(), i + 1, true
	}
	return "", 0, false
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

func isWordStart(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c == '_' || c == '$'
}

func isWordPart(c byte) bool { return isWordStart(c) || isDigit(c) }
