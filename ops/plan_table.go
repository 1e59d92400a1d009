package ops

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/adjl/adjl/schema"
	"github.com/adjl/adjl/tabledef"
	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// TableAdminAPI is the control plane `adjl table plan` and `apply` use beyond
// API. It is asked for separately (the Store's API is type-asserted to it)
// so that the data path's interface, and every fake of it, stay small.
type TableAdminAPI interface {
	UpdateTable(context.Context, *dynamodb.UpdateTableInput, ...func(*dynamodb.Options)) (*dynamodb.UpdateTableOutput, error)
	DescribeTimeToLive(context.Context, *dynamodb.DescribeTimeToLiveInput, ...func(*dynamodb.Options)) (*dynamodb.DescribeTimeToLiveOutput, error)
	UpdateTimeToLive(context.Context, *dynamodb.UpdateTimeToLiveInput, ...func(*dynamodb.Options)) (*dynamodb.UpdateTimeToLiveOutput, error)
	ListTagsOfResource(context.Context, *dynamodb.ListTagsOfResourceInput, ...func(*dynamodb.Options)) (*dynamodb.ListTagsOfResourceOutput, error)
	TagResource(context.Context, *dynamodb.TagResourceInput, ...func(*dynamodb.Options)) (*dynamodb.TagResourceOutput, error)
	UntagResource(context.Context, *dynamodb.UntagResourceInput, ...func(*dynamodb.Options)) (*dynamodb.UntagResourceOutput, error)
	DescribeContinuousBackups(context.Context, *dynamodb.DescribeContinuousBackupsInput, ...func(*dynamodb.Options)) (*dynamodb.DescribeContinuousBackupsOutput, error)
	UpdateContinuousBackups(context.Context, *dynamodb.UpdateContinuousBackupsInput, ...func(*dynamodb.Options)) (*dynamodb.UpdateContinuousBackupsOutput, error)
}

var _ TableAdminAPI = (*dynamodb.Client)(nil)

// ChangeKind says what `adjl table apply` can do about a difference.
type ChangeKind string

// Change kinds.
const (
	// ChangeCreate: the table does not exist; apply creates it.
	ChangeCreate ChangeKind = "create"
	// ChangeInPlace: DynamoDB changes it on the live table; apply does.
	ChangeInPlace ChangeKind = "in-place"
	// ChangeRefused: DynamoDB cannot change it in place (key schema, index
	// keys); Action says the way forward, and apply changes nothing.
	ChangeRefused ChangeKind = "refused"
	// ChangeReshard: the recorded shard count differs; only adjl reshard
	// moves the edges, and apply changes nothing.
	ChangeReshard ChangeKind = "reshard"
	// ChangeUnsupported: the schema manages a setting the backend does not
	// implement; apply skips it and says so.
	ChangeUnsupported ChangeKind = "unsupported"
)

// TableChange is one difference between the live table and the schema.
type TableChange struct {
	Field  string // "billing mode", "index GSI1 projection", "ttl", "tag team", ...
	Has    string // what the table has
	Wants  string // what the schema wants
	Action string // what apply does, or the way forward when it cannot
	Kind   ChangeKind
	// Detail, when set, is the whole difference in words (shard changes).
	Detail string
	// setting marks what CreateTable's comparison (Diff) leaves to apply:
	// provisioned units and deletion protection.
	setting bool
}

// String is the difference as `adjl table create` has always reported it.
func (c TableChange) String() string {
	if c.Detail != "" {
		return c.Detail
	}
	return fmt.Sprintf("%s: table has %s, schema wants %s", c.Field, c.Has, c.Wants)
}

// TablePlan is every difference between the live table and the schema, and
// the steps that make the in-place ones.
type TablePlan struct {
	Table   string
	Exists  bool
	Status  string // the table's status when planned ("" when it does not exist)
	Changes []TableChange
	steps   []applyStep
}

// applyStep is one request (or a request and a wait) of an apply.
type applyStep struct {
	what string
	run  func(ctx context.Context) error
}

// Blocking are the changes apply cannot make (refused and reshard); while
// there are any, apply changes nothing.
func (p *TablePlan) Blocking() []TableChange {
	var out []TableChange
	for _, c := range p.Changes {
		if c.Kind == ChangeRefused || c.Kind == ChangeReshard {
			out = append(out, c)
		}
	}
	return out
}

// Steps lists what apply will do, in order.
func (p *TablePlan) Steps() []string {
	out := make([]string, len(p.steps))
	for i, st := range p.steps {
		out[i] = st.what
	}
	return out
}

func (p *TablePlan) add(c TableChange, steps ...applyStep) {
	p.Changes = append(p.Changes, c)
	p.steps = append(p.steps, steps...)
}

// adoptAdvice is the way forward for a table whose keys differ from the
// schema's: when the table has a layout adjl can serve, say how the schema
// names it (adopting the table is a schema edit, not a migration), then
// how to change the table instead.
func (s *Store) adoptAdvice(live schema.Layout, index string, recognized bool, otherwise string) string {
	if !recognized {
		return otherwise
	}
	return adoptSchema(live, index) + "; to change the table instead: " + otherwise
}

// adoptSchema says how a schema names the layout live of a table whose
// index is named index.
func adoptSchema(live schema.Layout, index string) string {
	fix := fmt.Sprintf("table: {keys: {pk: %s, sk: %s}, index: {name: %s, keys: {pk: %s, sk: %s}}}", live.PK, live.SK, index, live.IndexPK, live.IndexSK)
	if live.Inverted() {
		fix = fmt.Sprintf("table: {keys: {pk: %s, sk: %s}, index: {name: %s, layout: inverted}}", live.PK, live.SK, index)
	}
	return "to use the table as it is, name its layout in the schema: " + fix + " (adjl schema infer proposes a whole schema from its items)"
}

// AdoptHint is, for a live table whose key layout adjl can serve but the
// schema names otherwise, how the schema names it; "" when the layouts
// agree or the table's is not one adjl can serve.
func (s *Store) AdoptHint(desc *types.TableDescription) string {
	live, index, ok := tabledef.LayoutOf(desc, tabledef.IndexName(s.schema))
	if !ok || sameLayout(live, s.layout) && index == tabledef.IndexName(s.schema) {
		return ""
	}
	return adoptSchema(live, index)
}

// sameLayout compares what a table description can show: the kind and the
// key names (not the type attribute, which no description names).
func sameLayout(a, b schema.Layout) bool {
	return a.Kind == b.Kind && a.PK == b.PK && a.SK == b.SK && a.IndexPK == b.IndexPK && a.IndexSK == b.IndexSK
}

// recreateAdvice is the way forward for what DynamoDB cannot change in place.
const recreateAdvice = "DynamoDB cannot change this in place: give the schema another table.name, create that table (adjl table create), copy the items over (adjl export, then adjl import) and delete this table"

// PlanTable compares the live table - its description, TTL, tags,
// continuous backups and the layout adjl recorded in it - with the schema.
// A missing table is a plan to create it.
func (s *Store) PlanTable(ctx context.Context) (*TablePlan, error) {
	p := &TablePlan{Table: s.schema.Table.Name}
	desc, err := s.DescribeTable(ctx)
	var nf *TableNotFoundError
	switch {
	case errors.As(err, &nf):
		p.add(TableChange{Field: "table", Has: "no table", Wants: "table " + p.Table, Kind: ChangeCreate, Detail: "table " + p.Table + " does not exist",
			Action: "create the table and index " + tabledef.IndexName(s.schema) + " (as adjl table create --wait)" + s.createSettingsNote()},
			applyStep{what: "create table " + p.Table, run: func(ctx context.Context) error {
				_, err := s.CreateTable(ctx, true)
				return err
			}})
		return p, nil
	case err != nil:
		return nil, err
	}
	p.Exists, p.Status = true, string(desc.TableStatus)
	s.planStructure(p, desc)
	if err := s.planSettings(ctx, p, desc); err != nil {
		return nil, err
	}
	// The recorded layout is an item under adjl's keys: a table with other
	// keys (refused above) or one still being created cannot hold it.
	if desc.TableStatus != types.TableStatusCreating && keySchemaString(desc.KeySchema) == keySchemaString(tabledef.TableKeySchema(s.schema)) {
		if err := s.planShards(ctx, p); err != nil {
			return nil, err
		}
		if err := s.planOrder(ctx, p, desc); err != nil {
			return nil, err
		}
	}
	return p, nil
}

// createSettingsNote names the settings a create applies after CreateTable.
func (s *Store) createSettingsNote() string {
	var after []string
	if tabledef.TimeToLive(s.schema) != nil {
		after = append(after, "TTL")
	}
	if tabledef.PointInTimeRecovery(s.schema) != nil {
		after = append(after, "point-in-time recovery")
	}
	if len(after) == 0 {
		return ""
	}
	return ", then turn on " + strings.Join(after, " and ")
}

// billingOf is the table's billing mode. Some servers omit the summary of
// a provisioned table; zero provisioned units then mean on demand.
func billingOf(desc *types.TableDescription) string {
	switch {
	case desc.BillingModeSummary != nil && desc.BillingModeSummary.BillingMode != "":
		return string(desc.BillingModeSummary.BillingMode)
	case desc.ProvisionedThroughput != nil && aws.ToInt64(desc.ProvisionedThroughput.ReadCapacityUnits) == 0:
		return string(types.BillingModePayPerRequest)
	}
	return string(types.BillingModeProvisioned)
}

func unitsOf(pt *types.ProvisionedThroughputDescription) string {
	if pt == nil {
		return "read 0, write 0"
	}
	return fmt.Sprintf("read %d, write %d", aws.ToInt64(pt.ReadCapacityUnits), aws.ToInt64(pt.WriteCapacityUnits))
}

func wantUnits(pt *types.ProvisionedThroughput) string {
	return fmt.Sprintf("read %d, write %d", aws.ToInt64(pt.ReadCapacityUnits), aws.ToInt64(pt.WriteCapacityUnits))
}

// planStructure compares keys, billing, throughput and the inverted index.
// It reads nothing: Diff uses it on a description alone.
func (s *Store) planStructure(p *TablePlan, desc *types.TableDescription) {
	want := tabledef.CreateTableInput(s.schema)
	name := s.schema.Table.Name
	live, liveIndex, recognized := tabledef.LayoutOf(desc, tabledef.IndexName(s.schema))
	if has, wants := keySchemaString(desc.KeySchema), keySchemaString(want.KeySchema); has != wants {
		p.add(TableChange{Field: "key schema", Has: has, Wants: wants, Kind: ChangeRefused, Action: s.adoptAdvice(live, liveIndex, recognized, recreateAdvice)})
	}
	defTypes := map[string]string{}
	for _, a := range desc.AttributeDefinitions {
		defTypes[aws.ToString(a.AttributeName)] = string(a.AttributeType)
	}
	for _, a := range s.layout.KeyNames() {
		if t, ok := defTypes[a]; ok && t != string(types.ScalarAttributeTypeS) {
			p.add(TableChange{Field: "attribute " + a + " type", Has: t, Wants: "S", Kind: ChangeRefused, Action: recreateAdvice})
		}
	}

	ixName := tabledef.IndexName(s.schema)
	var got *types.GlobalSecondaryIndexDescription
	var previous []string // other indexes on adjl's index keys: an earlier table.index.name
	for i := range desc.GlobalSecondaryIndexes {
		g := &desc.GlobalSecondaryIndexes[i]
		switch {
		case aws.ToString(g.IndexName) == ixName:
			got = g
		case keySchemaString(g.KeySchema) == keySchemaString(tabledef.IndexKeySchema(s.schema)):
			previous = append(previous, aws.ToString(g.IndexName))
		}
	}

	hasBilling, wantBilling := billingOf(desc), string(want.BillingMode)
	if hasBilling != wantBilling {
		in := &dynamodb.UpdateTableInput{TableName: aws.String(name), BillingMode: want.BillingMode}
		action := "UpdateTable BillingMode=" + wantBilling
		if pt := want.ProvisionedThroughput; pt != nil {
			in.ProvisionedThroughput = pt
			// A switch to provisioned must give every index its units.
			for _, g := range desc.GlobalSecondaryIndexes {
				in.GlobalSecondaryIndexUpdates = append(in.GlobalSecondaryIndexUpdates, types.GlobalSecondaryIndexUpdate{
					Update: &types.UpdateGlobalSecondaryIndexAction{IndexName: g.IndexName, ProvisionedThroughput: pt}})
			}
			action += fmt.Sprintf(" with %s for the table and each index", wantUnits(pt))
		}
		p.add(TableChange{Field: "billing mode", Has: hasBilling, Wants: wantBilling, Kind: ChangeInPlace,
			Action: action + " (DynamoDB limits how often a table switches billing mode)"},
			s.updateTableStep("switch billing mode to "+wantBilling, in))
	} else if pt := want.ProvisionedThroughput; pt != nil {
		in := &dynamodb.UpdateTableInput{TableName: aws.String(name)}
		if has := unitsOf(desc.ProvisionedThroughput); has != wantUnits(pt) {
			in.ProvisionedThroughput = pt
			p.add(TableChange{Field: "throughput", Has: has, Wants: wantUnits(pt), Kind: ChangeInPlace, setting: true,
				Action: "UpdateTable ProvisionedThroughput (DynamoDB limits how many decreases a day a table may have)"})
		}
		if got != nil {
			if has := unitsOf(got.ProvisionedThroughput); has != wantUnits(pt) {
				in.GlobalSecondaryIndexUpdates = []types.GlobalSecondaryIndexUpdate{{
					Update: &types.UpdateGlobalSecondaryIndexAction{IndexName: aws.String(ixName), ProvisionedThroughput: pt}}}
				p.add(TableChange{Field: "index " + ixName + " throughput", Has: has, Wants: wantUnits(pt), Kind: ChangeInPlace, setting: true,
					Action: "UpdateTable GlobalSecondaryIndexUpdates: Update " + ixName + " ProvisionedThroughput"})
			}
		}
		if in.ProvisionedThroughput != nil || in.GlobalSecondaryIndexUpdates != nil {
			p.steps = append(p.steps, s.updateTableStep("change provisioned throughput", in))
		}
	}

	wantIx := want.GlobalSecondaryIndexes[0]
	wantProj := string(wantIx.Projection.ProjectionType)
	if wantProj == schema.ProjectionInclude {
		wantProj += " [" + strings.Join(wantIx.Projection.NonKeyAttributes, " ") + "]"
	}
	switch {
	case got == nil:
		var names []string
		for _, g := range desc.GlobalSecondaryIndexes {
			names = append(names, aws.ToString(g.IndexName))
		}
		has := "no global index"
		if len(names) > 0 {
			has = "indexes " + strings.Join(names, ", ")
		}
		action := fmt.Sprintf("create index %s (projection %s) and wait until it is ACTIVE and backfilled", ixName, wantProj)
		steps := []applyStep{s.createIndexStep()}
		for _, old := range previous {
			action += fmt.Sprintf(", then delete index %s (same keys: the schema's previous index name)", old)
			steps = append(steps, s.deleteIndexStep(old))
		}
		p.add(TableChange{Field: "index " + ixName, Has: has, Wants: ixName, Kind: ChangeInPlace, Action: action}, steps...)
	default:
		if keySchemaString(got.KeySchema) != keySchemaString(wantIx.KeySchema) {
			has, wants := keySchemaString(got.KeySchema), keySchemaString(wantIx.KeySchema)
			if recognized {
				has += " (the " + string(live.Kind) + " layout)"
				wants += " (the " + string(s.layout.Kind) + " layout)"
			}
			p.add(TableChange{Field: "index " + ixName + " keys", Has: has, Wants: wants, Kind: ChangeRefused,
				Action: s.adoptAdvice(live, liveIndex, recognized, "an index's keys cannot change in place: give the index another name (table.index.name) and apply creates it beside this one (which adjl then leaves alone)")})
		}
		proj, nonKey := "", []string(nil)
		if got.Projection != nil {
			proj, nonKey = string(got.Projection.ProjectionType), slices.Clone(got.Projection.NonKeyAttributes)
		}
		replace := fmt.Sprintf("replace the index: delete %s, wait until it is gone, create it with projection %s and wait until it is ACTIVE and backfilled; reverse reads (%s) fail until then",
			ixName, wantProj, s.reverseVerbs())
		wantType := string(wantIx.Projection.ProjectionType)
		switch {
		case proj != wantType:
			p.add(TableChange{Field: "index " + ixName + " projection", Has: proj, Wants: wantType, Kind: ChangeInPlace, Action: replace},
				s.deleteIndexStep(ixName), s.createIndexStep())
		case proj == schema.ProjectionInclude:
			wantKeys := slices.Clone(wantIx.Projection.NonKeyAttributes)
			slices.Sort(nonKey)
			slices.Sort(wantKeys)
			has, wants := "["+strings.Join(nonKey, " ")+"]", "["+strings.Join(wantKeys, " ")+"]"
			if has != wants {
				p.add(TableChange{Field: "index " + ixName + " non-key attributes", Has: has, Wants: wants, Kind: ChangeInPlace, Action: replace},
					s.deleteIndexStep(ixName), s.createIndexStep())
			}
		}
	}

	if dp := s.schema.Table.Settings.DeletionProtection; dp != nil && aws.ToBool(desc.DeletionProtectionEnabled) != *dp {
		p.add(TableChange{Field: "deletion protection", Has: onOff(aws.ToBool(desc.DeletionProtectionEnabled)), Wants: onOff(*dp), Kind: ChangeInPlace, setting: true,
			Action: "UpdateTable DeletionProtectionEnabled=" + strconv.FormatBool(*dp)},
			s.updateTableStep("turn deletion protection "+onOff(*dp), &dynamodb.UpdateTableInput{TableName: aws.String(name), DeletionProtectionEnabled: aws.Bool(*dp)}))
	}
}

func onOff(b bool) string {
	if b {
		return "on"
	}
	return "off"
}

// reverseVerbs names the commands that read the index, for warnings.
func (s *Store) reverseVerbs() string {
	var out []string
	for _, r := range s.schema.Relations {
		if r.Verbs.Reverse != "" {
			out = append(out, r.Verbs.Reverse)
		} else {
			out = append(out, "list "+r.Name+" --reverse")
		}
	}
	if len(out) == 0 {
		return "none in this schema"
	}
	return strings.Join(out, ", ")
}

// planShards compares the shard counts the table recorded with the schema's.
// It reads the recorded layout itself (recordedShardDifferences), so what
// the metadata item holds can grow without touching the plan.
func (s *Store) planShards(ctx context.Context, p *TablePlan) error {
	diffs, err := s.recordedShardDifferences(ctx)
	if err != nil {
		return err
	}
	for _, d := range diffs {
		p.add(TableChange{Field: "relation " + d.relation + " shards", Has: strconv.Itoa(d.recorded), Wants: strconv.Itoa(d.wants),
			Kind: ChangeReshard, Detail: d.detail, Action: "apply does not move edges: run adjl reshard " + d.relation + " --to " + strconv.Itoa(d.wants)})
	}
	return nil
}

type shardDifference struct {
	relation        string
	recorded, wants int
	detail          string
}

// recordedShardDifferences reads the table's metadata item and lists the
// relations whose recorded shard count (or unfinished reshard) differs from
// the schema's.
func (s *Store) recordedShardDifferences(ctx context.Context) ([]shardDifference, error) {
	s.metaMu.Lock()
	defer s.metaMu.Unlock()
	if err := s.loadMeta(ctx, true); err != nil {
		var nf *TableNotFoundError
		if errors.As(err, &nf) {
			return nil, nil
		}
		return nil, err
	}
	var out []shardDifference
	for _, r := range s.schema.Relations {
		if d, _ := s.shardMismatch(r); d != "" {
			recorded := s.metaShards[r.Name]
			if st, ok := s.metaReshard[r.Name]; ok {
				recorded = st.From
			}
			out = append(out, shardDifference{relation: r.Name, recorded: recorded, wants: shardsOf(r), detail: d})
		}
	}
	return out, nil
}

// applyHint is the remedy for differences apply makes in place.
const applyHint = "adjl table apply --yes makes these changes in place (adjl table plan shows how)"

// mismatchHint is the remedy for the structural differences of desc:
// apply's when it can make all of them, else how to adopt the table when
// its layout is one adjl serves, else "" (the generic advice).
func (s *Store) mismatchHint(desc *types.TableDescription) string {
	p := &TablePlan{}
	s.planStructure(p, desc)
	for _, c := range p.Changes {
		if !c.setting && c.Kind != ChangeInPlace {
			return s.AdoptHint(desc)
		}
	}
	return applyHint
}
