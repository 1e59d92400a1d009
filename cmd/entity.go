package cmd

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/adjl/adjl/internal/english"
	"github.com/adjl/adjl/ops"
	"github.com/adjl/adjl/schema"
	"github.com/spf13/cobra"
)

// onEntity is what get and delete share: check KEY's prefix, run call on the
// store, and settle the outcomes. ok is false when there is nothing to
// print: while explaining, or on an error (a missing item is exit 1 and
// names the key).
func onEntity[T any](ctx context.Context, a *app, key string, call func(context.Context, *ops.Store) (T, error)) (res T, ok bool, err error) {
	s, err := a.schema()
	if err != nil {
		return res, false, err
	}
	if _, _, err := s.ResolveKey(key); err != nil {
		return res, false, err
	}
	st, err := a.storeFor(ctx)
	if err != nil {
		return res, false, err
	}
	res, err = call(ctx, st)
	switch {
	case a.explaining() && (err == nil || errors.Is(err, ops.ErrItemNotFound)):
		return res, false, nil
	case errors.Is(err, ops.ErrItemNotFound):
		return res, false, &notFoundError{key: key}
	}
	return res, err == nil, err
}

func (a *app) newPutCmd() *cobra.Command {
	var sets, unsets []string
	c := &cobra.Command{
		Use:   "put ENTITY ID [--set name=value ...] [--unset name ...]",
		Short: "Create or update an entity item",
		Long: `Create or update the item of an entity: <prefix><id> in every key attribute
(PK = SK = GSI1PK = GSI1SK with the default names; the schema's table.keys
and index layout name them otherwise).
Attributes are typed by the schema; counters are never touched by put.
--unset removes an attribute, in the same UpdateItem. --set name=@FILE reads
the value from FILE (one trailing newline dropped; @- reads standard input,
and @@ starts a value with a literal @). Prints "created", "updated" or
"unchanged".`,
		Example: withExamples(
			"adjl put student a91 --set name=Ana --set email=ana@example.com",
			"adjl put course CRS#math204 --set title=Algebra --set credits=6",
			"adjl put student a91 --unset email",
			"adjl put course math204 --set title=@title.txt",
		),
		Args:              exactArgs("ENTITY", "ID"),
		ValidArgsFunction: a.completeFirst(entityNames),
		RunE: func(c *cobra.Command, args []string) error {
			e, err := a.entityArg(c, args[0])
			if err != nil {
				return err
			}
			key, err := e.Key(args[1])
			if err != nil {
				return err
			}
			expanded, err := readSetFiles(sets, a.io.In)
			if err != nil {
				return err
			}
			attrs, err := a.sch.ParseSets(e.Attributes, expanded)
			if err != nil {
				return err
			}
			if err := checkUnsets(a.sch.Layout().Reserved(), e.Attributes, unsets, attrs); err != nil {
				return err
			}
			st, err := a.storeFor(c.Context())
			if err != nil {
				return err
			}
			out, err := st.PutEntityRemoving(c.Context(), e, key, attrs, unsets)
			if err != nil || a.explaining() {
				return err
			}
			return a.printer().result(fmt.Sprintf("%s %s", out, key),
				orderedObject{{"outcome", string(out)}, {"entity", e.Name}, {"key", key}})
		},
	}
	c.Flags().StringArrayVar(&sets, "set", nil, "attribute `name=value` (repeatable; name=@FILE reads the value from a file, @- from stdin, @@ is a literal @)")
	c.Flags().StringArrayVar(&unsets, "unset", nil, "remove the attribute `name` (repeatable)")
	c.RegisterFlagCompletionFunc("set", a.completeEntityAttrs(setCompletion))
	c.RegisterFlagCompletionFunc("unset", a.completeEntityAttrs(unsetCompletion))
	return c
}

// completeEntityAttrs completes a flag of put with complete over the
// attributes of the entity its first argument names; nothing before that
// argument names an entity of the schema.
func (a *app) completeEntityAttrs(complete func([]schema.Attribute) func(*cobra.Command, []string, string) ([]string, cobra.ShellCompDirective)) func(*cobra.Command, []string, string) ([]string, cobra.ShellCompDirective) {
	return func(c *cobra.Command, args []string, typed string) ([]string, cobra.ShellCompDirective) {
		if len(args) == 0 || a.sch == nil || a.sch.Entity(args[0]) == nil {
			return nil, cobra.ShellCompDirectiveNoFileComp
		}
		return complete(a.sch.Entity(args[0]).Attributes)(c, args, typed)
	}
}

func (a *app) newGetCmd() *cobra.Command {
	var consistent bool
	var entity string
	c := &cobra.Command{
		Use:   "get KEY",
		Short: "Print an entity whole: its attributes and every count kept for it",
		Long: `Print the item of KEY: an entity key such as STU#a91, or a role key such as
TARGET#bob. An entity key shows the entity whole: its attributes and the
counters the relations keep on it and on its role items (USER#taylor shows
followerCount, kept on TARGET#taylor, and followingCount, kept on
ACTOR#taylor), read with one GetItem, or one BatchGetItem where the entity
has role items, plus one Query per sharded counter. A role key shows that
item alone. A bare id (taylor) is taken as the entity's where the schema has
one entity; --entity names it otherwise. Exits 1 if nothing is stored
under the key. With -o csv the header is the entity's - key, type, its
declared attributes, its counters - whichever the item holds (unset ones are
empty cells), so the rows of several gets line up.`,
		Example: withExamples(
			"adjl get STU#a91",
			"adjl get CRS#math204 -o json",
			"adjl get a91 --entity student",
		),
		Args: exactArgs("KEY"),
		RunE: func(c *cobra.Command, args []string) error {
			key, err := a.entityKey(c, args[0], entity)
			if err != nil {
				return err
			}
			item, ok, err := onEntity(c.Context(), a, key, func(ctx context.Context, st *ops.Store) (ops.Item, error) {
				return st.GetWholeEntity(ctx, key, consistent)
			})
			if !ok {
				return err
			}
			rec, err := entityRecord(a.sch, item)
			if err != nil {
				return err
			}
			if a.set.Output == "csv" {
				// One header for every item of the entity, so rows of
				// several gets line up: unset attributes are empty cells.
				rec = withColumns(rec, entityColumns(a.sch, key))
			}
			return a.printer().object(rec)
		},
	}
	c.Flags().BoolVar(&consistent, "consistent", false, "strongly consistent read")
	c.Flags().StringVar(&entity, "entity", "", "the `ENTITY` whose prefix a bare id gets")
	c.RegisterFlagCompletionFunc("entity", a.completeFirst(entityNames))
	return c
}

// entityKey resolves get's KEY: a key with one of the schema's prefixes is
// taken as it is; a bare id gets the prefix of the entity --entity names or,
// where the schema has a single entity, of that one.
func (a *app) entityKey(c *cobra.Command, arg, entity string) (string, error) {
	s, err := a.schema()
	if err != nil {
		return "", err
	}
	if entity != "" {
		e, err := a.entityArg(c, entity)
		if err != nil {
			return "", err
		}
		return e.Key(arg)
	}
	_, _, err = s.ResolveKey(arg)
	switch {
	case err == nil:
		return arg, nil
	case arg == "" || strings.Contains(arg, schema.Delimiter):
		return "", err
	case len(s.Entities) == 1:
		return s.Entities[0].Key(arg)
	}
	var keys []string
	for _, e := range s.Entities {
		keys = append(keys, e.Prefix+arg)
	}
	return "", &usageError{cmd: c, err: err,
		hint: fmt.Sprintf("write the prefix (%s) or name the entity: --entity %s", strings.Join(keys, " or "), strings.Join(entityNames(s), "|"))}
}

func (a *app) newDeleteCmd() *cobra.Command {
	var cascade bool
	c := &cobra.Command{
		Use:   "delete KEY [--cascade]",
		Short: "Delete an entity item (refused while it has edges, unless --cascade)",
		Long: `Delete the item of KEY. If edges still point to or from it the delete is refused
(exit 5); --cascade removes those edges in both directions first and fixes the
other sides' counters.`,
		Example: withExamples(
			"adjl delete STU#a91",
			"adjl delete CRS#math204 --cascade",
		),
		Args: exactArgs("KEY"),
		RunE: func(c *cobra.Command, args []string) error {
			rep, ok, err := onEntity(c.Context(), a, args[0], func(ctx context.Context, st *ops.Store) (ops.DeleteReport, error) {
				return st.DeleteEntity(ctx, args[0], cascade)
			})
			if !ok {
				return err
			}
			key := rep.Key
			if key == "" {
				key = args[0]
			}
			msg := "deleted " + key
			if cascade {
				msg += fmt.Sprintf(" (%d %s removed)", rep.EdgesRemoved, english.Plural(rep.EdgesRemoved, "edge", "edges"))
			}
			return a.printer().result(msg, orderedObject{{"outcome", "deleted"}, {"key", key}, {"edgesRemoved", rep.EdgesRemoved}})
		},
	}
	c.Flags().BoolVar(&cascade, "cascade", false, "also remove its edges (both directions) and fix counters")
	return c
}
