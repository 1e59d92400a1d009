package partiql

import "github.com/adjl/adjl/local/internal/attr"

// Statement is a parsed PartiQL statement: *Select, *Insert, *Update,
// *Delete or *Exists.
type Statement interface {
	// TableName is the table the statement reads or writes.
	TableName() string
	// Params is how many ? parameters the statement has.
	Params() int
}

// Select is SELECT projection FROM "table"[."index"] [WHERE cond]
// [ORDER BY key [ASC|DESC], ...].
type Select struct {
	Star    bool        // SELECT *
	Columns []*PathExpr // otherwise the projected paths, in order
	Table   string
	Index   string // "" for the table itself
	Where   Expr   // nil when absent
	OrderBy []OrderTerm
	params  int
}

// OrderTerm is one ORDER BY key.
type OrderTerm struct {
	Name string
	Desc bool
	Pos  Pos
}

// Insert is INSERT INTO "table" VALUE {...}.
type Insert struct {
	Table  string
	Value  Expr
	params int
}

// Update is UPDATE "table" SET ... REMOVE ... WHERE cond [RETURNING ...]
// (or the same with FROM "table" first).
type Update struct {
	Table     string
	Actions   []Action
	Where     Expr
	Returning string // ALL_OLD, UPDATED_OLD, ALL_NEW, UPDATED_NEW or ""
	params    int
}

// Action is one SET path = value or REMOVE path.
type Action struct {
	Remove bool
	Path   *PathExpr
	Value  Expr // nil for REMOVE
}

// Delete is DELETE FROM "table" WHERE cond [RETURNING ALL OLD *].
type Delete struct {
	Table     string
	Where     Expr
	Returning string
	params    int
}

// Exists is EXISTS(SELECT ...), the condition check of a transaction.
type Exists struct {
	Select *Select
}

func (s *Select) TableName() string { return s.Table }
func (s *Insert) TableName() string { return s.Table }
func (s *Update) TableName() string { return s.Table }
func (s *Delete) TableName() string { return s.Table }
func (s *Exists) TableName() string { return s.Select.Table }

func (s *Select) Params() int { return s.params }
func (s *Insert) Params() int { return s.params }
func (s *Update) Params() int { return s.params }
func (s *Delete) Params() int { return s.params }
func (s *Exists) Params() int { return s.Select.params }

// Expr is a PartiQL expression.
type Expr interface {
	position() Pos
}

// PathExpr is an attribute name or document path: a.b[1]."c d".
type PathExpr struct {
	Pos   Pos
	Steps []Step
}

// Step is one element of a path: a name, or a list index when IsIndex.
type Step struct {
	Name    string
	Index   int
	IsIndex bool
}

// LitExpr is a scalar literal: a string, TRUE, FALSE or NULL in V, or a
// number in Num, kept as written (with any sign folded in) until it is
// converted where DynamoDB's messages can name its place.
type LitExpr struct {
	Pos Pos
	V   attr.Value
	Num string
}

// MissingExpr is the literal MISSING.
type MissingExpr struct{ Pos Pos }

// ParamExpr is the N-th (from 0) ? of the statement.
type ParamExpr struct {
	Pos Pos
	N   int
}

// ListExpr is [e, ...].
type ListExpr struct {
	Pos   Pos
	Elems []Expr
}

// BagExpr is <<e, ...>>, DynamoDB's set literal.
type BagExpr struct {
	Pos   Pos
	Elems []Expr
}

// MapExpr is {k: v, ...}, a PartiQL tuple.
type MapExpr struct {
	Pos  Pos
	Keys []Expr
	Vals []Expr
}

// BinaryExpr is an infix operator: AND, OR, =, <>, <, <=, >, >=, +, - (and
// the ones DynamoDB refuses: *, /, %, ||, LIKE).
type BinaryExpr struct {
	Pos  Pos // of the operator
	Op   string
	L, R Expr
}

// UnaryExpr is NOT x, or a sign before something that is not a number
// literal (a sign before a number is folded into the literal).
type UnaryExpr struct {
	Pos Pos
	Op  string // NOT, +, -
	X   Expr
}

// BetweenExpr is x [NOT] BETWEEN lo AND hi.
type BetweenExpr struct {
	Pos       Pos
	X, Lo, Hi Expr
	Not       bool
}

// InExpr is x [NOT] IN [a, b, ...] (or (a, b, ...)); List is nil when the
// right-hand side is not a sequence, kept in RHS for the message.
type InExpr struct {
	Pos  Pos
	X    Expr
	List []Expr
	RHS  Expr
	Not  bool
}

// IsExpr is x IS [NOT] type, with the type name upper-cased.
type IsExpr struct {
	Pos  Pos
	X    Expr
	Type string
	Not  bool
}

// CallExpr is a function call; Name is lower-cased.
type CallExpr struct {
	Pos  Pos
	Name string
	Args []Expr
}

func (e *PathExpr) position() Pos    { return e.Pos }
func (e *LitExpr) position() Pos     { return e.Pos }
func (e *MissingExpr) position() Pos { return e.Pos }
func (e *ParamExpr) position() Pos   { return e.Pos }
func (e *ListExpr) position() Pos    { return e.Pos }
func (e *BagExpr) position() Pos     { return e.Pos }
func (e *MapExpr) position() Pos     { return e.Pos }
func (e *BinaryExpr) position() Pos  { return e.Pos }
func (e *UnaryExpr) position() Pos   { return e.Pos }
func (e *BetweenExpr) position() Pos { return e.Pos }
func (e *InExpr) position() Pos      { return e.Pos }
func (e *IsExpr) position() Pos      { return e.Pos }
func (e *CallExpr) position() Pos    { return e.Pos }
