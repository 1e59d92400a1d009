package dyntest

import (
	"sort"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// testTTLAndTags: DescribeTimeToLive / UpdateTimeToLive and the tagging API.
// https://docs.aws.amazon.com/amazondynamodb/latest/APIReference/API_UpdateTimeToLive.html
// https://docs.aws.amazon.com/amazondynamodb/latest/APIReference/API_DescribeTimeToLive.html
// https://docs.aws.amazon.com/amazondynamodb/latest/APIReference/API_TagResource.html
func (s *suite) testTTLAndTags(t *testing.T) {
	t.Run("TTL", func(t *testing.T) {
		tb := s.table(t, hashOnly)
		if s.quirks.Has(QuirkNoTTL) {
			_, err := s.c.UpdateTimeToLive(s.ctx(t), &dynamodb.UpdateTimeToLiveInput{TableName: aws.String(tb),
				TimeToLiveSpecification: &types.TimeToLiveSpecification{AttributeName: aws.String("expires"), Enabled: aws.Bool(true)}})
			s.documented(t, QuirkNoTTL, err == nil, "")
			return
		}
		describe := func() *types.TimeToLiveDescription {
			out, err := s.c.DescribeTimeToLive(s.ctx(t), &dynamodb.DescribeTimeToLiveInput{TableName: aws.String(tb)})
			must(t, err, "DescribeTimeToLive")
			return out.TimeToLiveDescription
		}
		if d := describe(); d == nil || d.TimeToLiveStatus != types.TimeToLiveStatusDisabled {
			t.Errorf("new table TTL = %+v, want DISABLED", d)
		}
		out, err := s.c.UpdateTimeToLive(s.ctx(t), &dynamodb.UpdateTimeToLiveInput{TableName: aws.String(tb),
			TimeToLiveSpecification: &types.TimeToLiveSpecification{AttributeName: aws.String("expires"), Enabled: aws.Bool(true)}})
		must(t, err, "UpdateTimeToLive enable")
		if sp := out.TimeToLiveSpecification; sp == nil || aws.ToString(sp.AttributeName) != "expires" || !aws.ToBool(sp.Enabled) {
			t.Errorf("UpdateTimeToLive response = %+v", sp)
		}
		d := describe()
		if d == nil || aws.ToString(d.AttributeName) != "expires" ||
			(d.TimeToLiveStatus != types.TimeToLiveStatusEnabled && d.TimeToLiveStatus != types.TimeToLiveStatusEnabling) {
			t.Errorf("TTL after enable = %+v, want ENABLED on expires", d)
		}
		// "TimeToLive is already enabled": enabling again is a ValidationException.
		_, err = s.c.UpdateTimeToLive(s.ctx(t), &dynamodb.UpdateTimeToLiveInput{TableName: aws.String(tb),
			TimeToLiveSpecification: &types.TimeToLiveSpecification{AttributeName: aws.String("expires"), Enabled: aws.Bool(true)}})
		s.documented(t, QuirkTTLNoReenableCheck, apiCode(err) == "ValidationException", "re-enabling TTL: got %v, want ValidationException", err)
		_, err = s.c.UpdateTimeToLive(s.ctx(t), &dynamodb.UpdateTimeToLiveInput{TableName: aws.String(tb),
			TimeToLiveSpecification: &types.TimeToLiveSpecification{AttributeName: aws.String("expires"), Enabled: aws.Bool(false)}})
		must(t, err, "UpdateTimeToLive disable")
		if d := describe(); d == nil || (d.TimeToLiveStatus != types.TimeToLiveStatusDisabled && d.TimeToLiveStatus != types.TimeToLiveStatusDisabling) {
			t.Errorf("TTL after disable = %+v, want DISABLED", d)
		}
		_, err = s.c.DescribeTimeToLive(s.ctx(t), &dynamodb.DescribeTimeToLiveInput{TableName: aws.String(tb + "-missing")})
		var nf *types.ResourceNotFoundException
		s.documented(t, QuirkTTLMissingTableCode, asErr(err, &nf), "DescribeTimeToLive of a missing table: got %v, want ResourceNotFoundException", err)
	})

	t.Run("Tags", func(t *testing.T) {
		spec := hashOnly
		spec.Tags = []types.Tag{{Key: aws.String("team"), Value: aws.String("core")}}
		tb := s.table(t, spec)
		arn := aws.ToString(s.waitActive(t, tb).TableArn)
		list := func() string {
			out, err := s.c.ListTagsOfResource(s.ctx(t), &dynamodb.ListTagsOfResourceInput{ResourceArn: aws.String(arn)})
			must(t, err, "ListTagsOfResource")
			var kv []string
			for _, tg := range out.Tags {
				kv = append(kv, aws.ToString(tg.Key)+"="+aws.ToString(tg.Value))
			}
			sort.Strings(kv)
			return join(kv)
		}
		got := list()
		s.documented(t, QuirkCreateTableTagsIgnored, got == "team=core", "tags from CreateTable = %q, want team=core", got)
		_, err := s.c.TagResource(s.ctx(t), &dynamodb.TagResourceInput{ResourceArn: aws.String(arn), Tags: []types.Tag{
			{Key: aws.String("env"), Value: aws.String("test")}, {Key: aws.String("team"), Value: aws.String("data")}}})
		must(t, err, "TagResource")
		// "If you try to add an existing tag (same key), the existing tag value
		// will be updated to the new value."
		// https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/Tagging.html
		got = list()
		s.documented(t, QuirkTagsNotOverwritten, got == "env=test,team=data", "tags after TagResource = %q, want env=test,team=data", got)
		_, err = s.c.UntagResource(s.ctx(t), &dynamodb.UntagResourceInput{ResourceArn: aws.String(arn), TagKeys: []string{"team", "absent"}})
		must(t, err, "UntagResource")
		if got := list(); got != "env=test" && !s.quirks.Has(QuirkTagsNotOverwritten) {
			t.Errorf("tags after UntagResource = %q, want env=test", got)
		}
	})
}
