package cmd

import (
	"context"
	"fmt"

	"github.com/adjl/adjl/ops"
	"github.com/adjl/adjl/schema"
	"github.com/spf13/cobra"
)

// edgeArgs are the validated keys of one edge command: they are checked
// against the relation's prefixes and DynamoDB's size limits before any
// request is built.
type edgeArgs struct {
	rel            *schema.Relation
	fromKey, toKey string
	attrs          map[string]any
	// unsets: edge attributes an existing edge loses (--unset).
	unsets []string
	// requireEntities: the link refuses when either entity item is missing.
	requireEntities bool
	// consistent: the check reads strongly consistently.
	consistent bool
}

func resolveEdge(s *schema.Schema, rel *schema.Relation, from, to string, sets []string) (*edgeArgs, error) {
	fromKey, err := rel.FromKey(from)
	if err != nil {
		return nil, err
	}
	toKey, err := rel.ToKey(to)
	if err != nil {
		return nil, err
	}
	e := &edgeArgs{rel: rel, fromKey: fromKey, toKey: toKey}
	if len(sets) > 0 {
		if e.attrs, err = s.ParseSets(rel.Attributes, sets); err != nil {
			return nil, err
		}
	}
	return e, nil
}

// edgeFlags are the flags of the edge commands (verb or generic form):
// link has --set and --require-entities, check --consistent, unlink none.
type edgeFlags struct {
	sets            []string
	unsets          []string
	requireEntities bool
	consistent      bool
}

// addLinkFlags declares a link command's flags on c, completing --set
// with attrs.
func (f *edgeFlags) addLinkFlags(c *cobra.Command, attrs []schema.Attribute) {
	c.Flags().StringArrayVar(&f.sets, "set", nil, "edge attribute `name=value` (repeatable; name=@FILE reads the value from a file, @- from stdin, @@ is a literal @)")
	c.Flags().StringArrayVar(&f.unsets, "unset", nil, "remove the edge attribute `name` from an existing edge (repeatable)")
	c.Flags().BoolVar(&f.requireEntities, "require-entities", false,
		"refuse the link, in the same transaction, when either entity item does not exist")
	if attrs != nil {
		c.RegisterFlagCompletionFunc("set", setCompletion(attrs))
		c.RegisterFlagCompletionFunc("unset", unsetCompletion(attrs))
	}
}

// addCheckFlags declares a check command's flags on c.
func (f *edgeFlags) addCheckFlags(c *cobra.Command) {
	c.Flags().BoolVar(&f.consistent, "consistent", false, "strongly consistent read")
}

// edgeRunE is the RunE of every edge command, verb or generic form: it
// resolves FROM and TO against rel (or, when rel is nil, against the
// relation the first argument names) with the command's flags, then runs.
func (a *app) edgeRunE(rel *schema.Relation, flags *edgeFlags, run func(context.Context, *edgeArgs) error) func(*cobra.Command, []string) error {
	return func(c *cobra.Command, args []string) error {
		r := rel
		if r == nil {
			var err error
			if r, err = a.relationArg(c, args[0]); err != nil {
				return err
			}
			args = args[1:]
		}
		sets, err := readSetFiles(flags.sets, a.io.In)
		if err != nil {
			return err
		}
		e, err := resolveEdge(a.sch, r, args[0], args[1], sets)
		if err != nil {
			return err
		}
		if err := checkUnsets(a.sch.Layout().Reserved(), r.Attributes, flags.unsets, e.attrs); err != nil {
			return err
		}
		e.requireEntities, e.consistent, e.unsets = flags.requireEntities, flags.consistent, flags.unsets
		return run(c.Context(), e)
	}
}

func (a *app) linkRun(ctx context.Context, e *edgeArgs) error {
	st, err := a.storeFor(ctx)
	if err != nil {
		return err
	}
	out, keys, err := st.LinkWith(ctx, e.rel, e.fromKey, e.toKey, e.attrs, ops.LinkOptions{RequireEntities: e.requireEntities, Remove: e.unsets})
	if err != nil || a.explaining() {
		return err
	}
	return a.printOutcome(e, out, keys)
}

func (a *app) unlinkRun(ctx context.Context, e *edgeArgs) error {
	st, err := a.storeFor(ctx)
	if err != nil {
		return err
	}
	out, keys, err := st.Unlink(ctx, e.rel, e.fromKey, e.toKey)
	if err != nil || a.explaining() {
		return err
	}
	return a.printOutcome(e, out, keys)
}

// printOutcome says what a link or unlink did: "created enrollment
// STU#a91 -> CRS#math204", or the same as a record with -o json.
func (a *app) printOutcome(e *edgeArgs, out ops.Outcome, k schema.Keys) error {
	return a.printer().result(fmt.Sprintf("%s %s %s -> %s", out, e.rel.Name, e.fromKey, e.toKey), orderedObject{
		{"outcome", string(out)},
		{"relation", e.rel.Name},
		{"from", e.fromKey},
		{"to", e.toKey},
		{"keys", keysRecord(a.sch.Layout(), k)},
	})
}

// checkRun answers with the exit code: 0 linked, 1 not linked.
func (a *app) checkRun(ctx context.Context, e *edgeArgs) error {
	st, err := a.storeFor(ctx)
	if err != nil {
		return err
	}
	item, linked, err := st.Check(ctx, e.rel, e.fromKey, e.toKey, e.consistent)
	if err != nil || a.explaining() {
		return err
	}
	rec := orderedObject{{"linked", linked}, {"relation", e.rel.Name}, {"from", e.fromKey}, {"to", e.toKey}}
	if linked {
		attrs, err := appendAttrs(a.sch.Layout(), nil, e.rel.Attributes, item)
		if err != nil {
			return err
		}
		if len(attrs) > 0 {
			rec = append(rec, field{"attributes", attrs})
		}
	}
	sentence := "not linked"
	if linked {
		sentence = "linked"
	}
	if err := a.printer().result(sentence, rec); err != nil {
		return err
	}
	if !linked {
		return &statusError{code: ExitFalse}
	}
	return nil
}

// keysRecord is an item's key attributes as the layout names them.
func keysRecord(l schema.Layout, k schema.Keys) orderedObject {
	var rec orderedObject
	for _, kv := range l.KeyValues(k) {
		rec = append(rec, field{kv.Name, kv.Value})
	}
	return rec
}
