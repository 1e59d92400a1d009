package ops

import "github.com/adjl/adjl/schema"

// school is examples/school.yaml built by hand, so these tests do not depend
// on the YAML parser.
func school() *schema.Schema {
	stu := &schema.Entity{Name: "student", Prefix: "STU#", Attributes: []schema.Attribute{{Name: "name", Kind: schema.KindString}}}
	crs := &schema.Entity{Name: "course", Prefix: "CRS#", Attributes: []schema.Attribute{{Name: "credits", Kind: schema.KindNumber}}}
	return &schema.Schema{
		Version:  1,
		Table:    schema.Table{Name: "school", Billing: schema.BillingOnDemand, Index: schema.Index{Name: "GSI1", Projection: schema.ProjectionAll}},
		Entities: []*schema.Entity{stu, crs},
		Relations: []*schema.Relation{{
			Name: "enrollment", From: schema.Side{Entity: stu, Prefix: "STU#"}, To: schema.Side{Entity: crs, Prefix: "CRS#"},
			Edge:       "ENROLL#",
			Verbs:      schema.Verbs{Link: "enroll", Unlink: "unenroll", Check: "enrolled", Forward: "courses", Reverse: "members"},
			Attributes: []schema.Attribute{{Name: "grade", Kind: schema.KindString}, {Name: "tags", Kind: schema.KindStrings}},
			Counters:   schema.Counters{From: "courseCount", To: "studentCount"},
			Shards:     1,
		}},
	}
}

// social is examples/social.yaml: role prefixes, empty edge prefix, shards.
func social(shards int) *schema.Schema {
	user := &schema.Entity{Name: "user", Prefix: "USER#"}
	return &schema.Schema{
		Version:  1,
		Table:    schema.Table{Name: "social", Billing: schema.BillingOnDemand, Index: schema.Index{Name: "GSI1", Projection: schema.ProjectionKeysOnly}},
		Entities: []*schema.Entity{user},
		Relations: []*schema.Relation{{
			Name: "follow", From: schema.Side{Entity: user, Prefix: "ACTOR#"}, To: schema.Side{Entity: user, Prefix: "TARGET#"},
			Verbs:    schema.Verbs{Link: "follow", Unlink: "unfollow", Check: "follows", Forward: "following", Reverse: "followers"},
			Counters: schema.Counters{From: "followingCount", To: "followerCount"},
			Shards:   shards,
		}},
	}
}
