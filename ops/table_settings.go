package ops

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/adjl/adjl/internal/english"
	"github.com/adjl/adjl/tabledef"
	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

func (s *Store) admin() (TableAdminAPI, bool) {
	a, ok := s.api.(TableAdminAPI)
	return a, ok
}

// unsupported reports an operation the backend does not implement.
func unsupported(err error) bool {
	switch errorCode(err) {
	case "UnknownOperationException", "NotImplemented", "NotImplementedException", "InvalidAction":
		return true
	}
	return false
}

// settingUnread handles the error of op, the request that reads a managed
// setting's state: on a backend without op, the setting becomes an
// unsupported change of field in p; another error is returned, saying what
// failed. done is false when there was no error and planning goes on.
func (s *Store) settingUnread(p *TablePlan, err error, field, op, what string) (done bool, _ error) {
	switch {
	case unsupported(err):
		p.add(unsupportedChange(field, op, err))
		return true, nil
	case err != nil:
		return true, fmt.Errorf("%s of table %s: %w", what, s.schema.Table.Name, s.classify(err))
	}
	return false, nil
}

// unsupportedChange is a managed setting the backend cannot describe.
func unsupportedChange(field, op string, err error) TableChange {
	why := "the backend has no " + op
	if err != nil {
		why += " (" + errorCode(err) + ")"
	}
	return TableChange{Field: field, Has: "unknown: " + why, Wants: "a managed value", Kind: ChangeUnsupported,
		Action: why}
}

// planSettings compares the settings the schema manages: TTL, tags and
// point-in-time recovery (deletion protection is in the description).
func (s *Store) planSettings(ctx context.Context, p *TablePlan, desc *types.TableDescription) error {
	st := s.schema.Table.Settings
	if st.TTL == nil && !st.ManageTags && st.PointInTimeRecovery == nil {
		return nil
	}
	admin, ok := s.admin()
	if !ok {
		for _, f := range []struct {
			managed bool
			field   string
		}{{st.TTL != nil, "ttl"}, {st.ManageTags, "tags"}, {st.PointInTimeRecovery != nil, "point-in-time recovery"}} {
			if f.managed {
				p.add(unsupportedChange(f.field, "table administration API", nil))
			}
		}
		return nil
	}
	if st.TTL != nil {
		if err := s.planTTL(ctx, admin, p); err != nil {
			return err
		}
	}
	if st.ManageTags {
		if err := s.planTags(ctx, admin, p, aws.ToString(desc.TableArn)); err != nil {
			return err
		}
	}
	if st.PointInTimeRecovery != nil {
		if err := s.planPITR(ctx, admin, p); err != nil {
			return err
		}
	}
	return nil
}

func (s *Store) planTTL(ctx context.Context, admin TableAdminAPI, p *TablePlan) error {
	name := s.schema.Table.Name
	out, err := admin.DescribeTimeToLive(ctx, &dynamodb.DescribeTimeToLiveInput{TableName: aws.String(name)})
	if done, err := s.settingUnread(p, err, "ttl", "DescribeTimeToLive", "describe TTL"); done {
		return err
	}
	has := ""
	if d := out.TimeToLiveDescription; d != nil && (d.TimeToLiveStatus == types.TimeToLiveStatusEnabled || d.TimeToLiveStatus == types.TimeToLiveStatusEnabling) {
		has = aws.ToString(d.AttributeName)
	}
	wants := s.schema.Table.Settings.TTL.Attribute
	if has == wants {
		return nil
	}
	show := func(a string) string {
		if a == "" {
			return "off"
		}
		return "on " + a
	}
	ttlStep := func(attr string, enable bool) applyStep {
		what := "turn TTL off (it was on " + attr + ")"
		if enable {
			what = "turn TTL on " + attr
		}
		return applyStep{what: what, run: func(ctx context.Context) error {
			_, err := admin.UpdateTimeToLive(ctx, &dynamodb.UpdateTimeToLiveInput{TableName: aws.String(name),
				TimeToLiveSpecification: &types.TimeToLiveSpecification{AttributeName: aws.String(attr), Enabled: aws.Bool(enable)}})
			if err != nil {
				return fmt.Errorf("%s: %w", what, s.classify(err))
			}
			return nil
		}}
	}
	c := TableChange{Field: "ttl", Has: show(has), Wants: show(wants), Kind: ChangeInPlace}
	var steps []applyStep
	switch {
	case has == "":
		c.Action = "UpdateTimeToLive: enable on " + wants
		steps = append(steps, ttlStep(wants, true))
	case wants == "":
		c.Action = "UpdateTimeToLive: disable"
		steps = append(steps, ttlStep(has, false))
	default:
		c.Action = "UpdateTimeToLive: disable on " + has + ", then enable on " + wants + " (DynamoDB accepts one TTL change per table an hour: the second may have to wait for a later apply)"
		en := ttlStep(wants, true)
		run := en.run
		en.run = func(ctx context.Context) error {
			if err := run(ctx); err != nil {
				return fmt.Errorf("%w; TTL is now off: run adjl table apply --yes again in an hour to turn it on %s", err, wants)
			}
			return nil
		}
		steps = append(steps, ttlStep(has, false), en)
	}
	p.add(c, steps...)
	return nil
}

// awsTag reports a tag AWS itself sets (aws:cloudformation:stack-name...):
// users can neither set nor remove them, so they are never compared.
func awsTag(key string) bool { return strings.HasPrefix(strings.ToLower(key), "aws:") }

func (s *Store) planTags(ctx context.Context, admin TableAdminAPI, p *TablePlan, arn string) error {
	has := map[string]string{}
	in := &dynamodb.ListTagsOfResourceInput{ResourceArn: aws.String(arn)}
	for {
		out, err := admin.ListTagsOfResource(ctx, in)
		if done, err := s.settingUnread(p, err, "tags", "ListTagsOfResource", "list tags"); done {
			return err
		}
		for _, t := range out.Tags {
			if k := aws.ToString(t.Key); !awsTag(k) {
				has[k] = aws.ToString(t.Value)
			}
		}
		if aws.ToString(out.NextToken) == "" {
			break
		}
		in.NextToken = out.NextToken
	}
	wants := map[string]string{}
	var order []string
	for _, t := range s.schema.Table.Settings.Tags {
		wants[t.Key] = t.Value
		order = append(order, t.Key)
	}
	for _, k := range slices.Sorted(maps.Keys(has)) {
		if _, ok := wants[k]; !ok {
			order = append(order, k)
		}
	}
	var untag []string
	var tag []types.Tag
	var changes []TableChange
	for _, k := range order {
		hv, hok := has[k]
		wv, wok := wants[k]
		switch {
		case hok && wok && hv == wv:
			continue
		case !wok:
			untag = append(untag, k)
			changes = append(changes, TableChange{Field: "tag " + k, Has: strconv.Quote(hv), Wants: "no such tag", Kind: ChangeInPlace, Action: "UntagResource " + k})
		case !hok:
			tag = append(tag, types.Tag{Key: aws.String(k), Value: aws.String(wv)})
			changes = append(changes, TableChange{Field: "tag " + k, Has: "no such tag", Wants: strconv.Quote(wv), Kind: ChangeInPlace, Action: "TagResource " + k + "=" + wv})
		default:
			// Removed first, then set: a server that does not overwrite a
			// tag's value (moto) ends with the right value too.
			untag = append(untag, k)
			tag = append(tag, types.Tag{Key: aws.String(k), Value: aws.String(wv)})
			changes = append(changes, TableChange{Field: "tag " + k, Has: strconv.Quote(hv), Wants: strconv.Quote(wv), Kind: ChangeInPlace, Action: "TagResource " + k + "=" + wv})
		}
	}
	if len(changes) == 0 {
		return nil
	}
	p.Changes = append(p.Changes, changes...)
	p.steps = append(p.steps, applyStep{what: "change tags", run: func(ctx context.Context) error {
		if len(untag) > 0 {
			if _, err := admin.UntagResource(ctx, &dynamodb.UntagResourceInput{ResourceArn: aws.String(arn), TagKeys: untag}); err != nil {
				return fmt.Errorf("untag table: %w", s.classify(err))
			}
		}
		if len(tag) > 0 {
			if _, err := admin.TagResource(ctx, &dynamodb.TagResourceInput{ResourceArn: aws.String(arn), Tags: tag}); err != nil {
				return fmt.Errorf("tag table: %w", s.classify(err))
			}
		}
		return nil
	}})
	return nil
}

func (s *Store) planPITR(ctx context.Context, admin TableAdminAPI, p *TablePlan) error {
	name := s.schema.Table.Name
	out, err := admin.DescribeContinuousBackups(ctx, &dynamodb.DescribeContinuousBackupsInput{TableName: aws.String(name)})
	if done, err := s.settingUnread(p, err, "point-in-time recovery", "DescribeContinuousBackups", "describe continuous backups"); done {
		return err
	}
	has := false
	if d := out.ContinuousBackupsDescription; d != nil && d.PointInTimeRecoveryDescription != nil {
		has = d.PointInTimeRecoveryDescription.PointInTimeRecoveryStatus == types.PointInTimeRecoveryStatusEnabled
	}
	wants := *s.schema.Table.Settings.PointInTimeRecovery
	if has == wants {
		return nil
	}
	p.add(TableChange{Field: "point-in-time recovery", Has: onOff(has), Wants: onOff(wants), Kind: ChangeInPlace,
		Action: "UpdateContinuousBackups PointInTimeRecoveryEnabled=" + strconv.FormatBool(wants)},
		applyStep{what: "turn point-in-time recovery " + onOff(wants), run: func(ctx context.Context) error {
			return s.setPITR(ctx, admin, wants)
		}})
	return nil
}

func (s *Store) setPITR(ctx context.Context, admin TableAdminAPI, on bool) error {
	_, err := admin.UpdateContinuousBackups(ctx, &dynamodb.UpdateContinuousBackupsInput{TableName: aws.String(s.schema.Table.Name),
		PointInTimeRecoverySpecification: &types.PointInTimeRecoverySpecification{PointInTimeRecoveryEnabled: aws.Bool(on)}})
	if err != nil {
		return fmt.Errorf("turn point-in-time recovery %s: %w", onOff(on), s.classify(err))
	}
	return nil
}

// SettingsUnsupportedError reports settings a new table was created
// without because the backend does not implement them; the table itself was
// created.
type SettingsUnsupportedError struct {
	Table    string
	Settings []string // "point-in-time recovery (UpdateContinuousBackups)"
}

func (e *SettingsUnsupportedError) Error() string {
	return fmt.Sprintf("table %s was created without %s: the backend does not support %s",
		e.Table, strings.Join(e.Settings, " and "), english.Plural(len(e.Settings), "it", "them"))
}

// applyCreateSettings turns on, on a table just created, what CreateTable
// cannot: TTL and point-in-time recovery. DynamoDB takes them only once the
// table is ACTIVE, so it waits for that first.
func (s *Store) applyCreateSettings(ctx context.Context) error {
	ttl, pitr := tabledef.TimeToLive(s.schema), tabledef.PointInTimeRecovery(s.schema)
	if ttl == nil && pitr == nil {
		return nil
	}
	if err := s.waitActive(ctx); err != nil {
		return err
	}
	admin, ok := s.admin()
	var missing []string
	if ttl != nil {
		var err error
		if ok {
			_, err = admin.UpdateTimeToLive(ctx, &dynamodb.UpdateTimeToLiveInput{TableName: aws.String(s.schema.Table.Name), TimeToLiveSpecification: ttl})
		}
		switch {
		case !ok || unsupported(err):
			missing = append(missing, "TTL (UpdateTimeToLive)")
		case err != nil:
			return fmt.Errorf("turn TTL on %s: %w", aws.ToString(ttl.AttributeName), s.classify(err))
		}
	}
	if pitr != nil {
		var err error
		if ok {
			err = s.setPITR(ctx, admin, true)
		}
		switch {
		case !ok || unsupported(err):
			missing = append(missing, "point-in-time recovery (UpdateContinuousBackups)")
		case err != nil:
			return err
		}
	}
	if len(missing) > 0 {
		return &SettingsUnsupportedError{Table: s.schema.Table.Name, Settings: missing}
	}
	return nil
}

// settingDifferences lists, in words, the managed settings that differ:
// deletion protection, TTL, tags and point-in-time recovery. A setting the
// backend does not implement is not listed: CreateTable said so when it
// created the table, and adjl table plan shows it.
func (s *Store) settingDifferences(ctx context.Context, desc *types.TableDescription) ([]string, error) {
	p := &TablePlan{}
	s.planStructure(p, desc)
	var out []string
	for _, c := range p.Changes {
		if c.setting && c.Field == "deletion protection" {
			out = append(out, c.String())
		}
	}
	p.Changes = nil
	if err := s.planSettings(ctx, p, desc); err != nil {
		return nil, err
	}
	for _, c := range p.Changes {
		if c.Kind != ChangeUnsupported {
			out = append(out, c.String())
		}
	}
	return out, nil
}

// explainCreateSettings hands Explain the requests a create sends after
// CreateTable: TTL and point-in-time recovery.
func (s *Store) explainCreateSettings() {
	name := aws.String(s.schema.Table.Name)
	if ttl := tabledef.TimeToLive(s.schema); ttl != nil {
		s.explainWhen("UpdateTimeToLive", &dynamodb.UpdateTimeToLiveInput{TableName: name, TimeToLiveSpecification: ttl}, "only if the table was created: turns on its TTL")
	}
	if p := tabledef.PointInTimeRecovery(s.schema); p != nil {
		s.explainWhen("UpdateContinuousBackups", &dynamodb.UpdateContinuousBackupsInput{TableName: name, PointInTimeRecoverySpecification: p}, "only if the table was created: turns on point-in-time recovery")
	}
}
