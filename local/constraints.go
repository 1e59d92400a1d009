package local

import (
	"fmt"
	"slices"
	"strings"
)

// DynamoDB checks every member of a request against its API model (enums,
// lengths, ranges, required members) before anything else, and reports
// all the members that fail together:
//
//	2 validation errors detected: Value 'x' at 'select' failed to satisfy
//	constraint: Member must satisfy enum value set: [...]; Value '0' at
//	'limit' failed to satisfy constraint: Member must have value greater
//	than or equal to 1
//
// Operations collect these violations first, so they come before any
// other check and before the table is looked up.

// violations collects the constraint failures of one request.
type violations []string

// maxViolations is how many failures DynamoDB lists at most.
const maxViolations = 10

// add records that member (a lowerCamel path such as "returnValues" or
// "keyConditions.pk.member.comparisonOperator") with the given value failed
// constraint; value is nil for a missing member.
func (v *violations) add(value *string, member, constraint string) {
	if len(*v) >= maxViolations {
		return
	}
	shown := "null"
	if value != nil {
		shown = "'" + *value + "'"
	}
	*v = append(*v, fmt.Sprintf("Value %s at '%s' failed to satisfy constraint: %s", shown, member, constraint))
}

// unshown records a failure whose message does not echo the value, as
// DynamoDB's newer checks word it ("Value at 'RequestItems.t.member.Keys'").
func (v *violations) unshown(member, constraint string) {
	if len(*v) < maxViolations {
		*v = append(*v, fmt.Sprintf("Value at '%s' failed to satisfy constraint: %s", member, constraint))
	}
}

// null records a required member that is missing.
func (v *violations) null(member string) {
	v.add(nil, member, "Member must not be null")
}

// enum records value when it is set and not one of allowed (listed in the
// order DynamoDB's messages list them).
func (v *violations) enum(member, value string, allowed []string) {
	if value == "" || slices.Contains(allowed, value) {
		return
	}
	v.add(&value, member, "Member must satisfy enum value set: ["+strings.Join(allowed, ", ")+"]")
}

// minInt records an integer below its minimum.
func (v *violations) minInt(member string, n *int64, min int64) {
	if n != nil && *n < min {
		s := fmt.Sprint(*n)
		v.add(&s, member, fmt.Sprintf("Member must have value greater than or equal to %d", min))
	}
}

// maxInt records an integer above its maximum.
func (v *violations) maxInt(member string, n *int64, max int64) {
	if n != nil && *n > max {
		s := fmt.Sprint(*n)
		v.add(&s, member, fmt.Sprintf("Member must have value less than or equal to %d", max))
	}
}

// minLen records a list or map shorter than its minimum, shown as value.
func (v *violations) minLen(member, shown string, n, min int) {
	if n < min {
		v.add(&shown, member, fmt.Sprintf("Member must have length greater than or equal to %d", min))
	}
}

// attributesToGet records an empty AttributesToGet (nil: not sent).
func (v *violations) attributesToGet(member string, names []string) {
	if names != nil {
		v.minLen(member, "["+strings.Join(names, ", ")+"]", len(names), 1)
	}
}

// err is the ValidationException for the collected failures, or nil.
func (v violations) err() error {
	if len(v) == 0 {
		return nil
	}
	noun := "error"
	if len(v) > 1 {
		noun = "errors"
	}
	return validationf("%d validation %s detected: %s", len(v), noun, strings.Join(v, "; "))
}

// checkReturnOnFailure checks ReturnValuesOnConditionCheckFailure alone, for
// operations that have no other member constraints to collect.
func checkReturnOnFailure(value string) error {
	var v violations
	v.enum("returnValuesOnConditionCheckFailure", value, enumReturnOnFailure)
	return v.err()
}

// The enum value sets, in the order DynamoDB's messages list them.
var (
	enumReturnConsumedCapacity = []string{"INDEXES", "TOTAL", "NONE"}
	enumReturnItemCollection   = []string{"SIZE", "NONE"}
	enumReturnValues           = []string{"ALL_NEW", "UPDATED_OLD", "ALL_OLD", "NONE", "UPDATED_NEW"}
	enumReturnOnFailure        = []string{"ALL_OLD", "NONE"}
	enumConditionalOperator    = []string{"OR", "AND"}
	enumSelect                 = []string{"SPECIFIC_ATTRIBUTES", "COUNT", "ALL_ATTRIBUTES", "ALL_PROJECTED_ATTRIBUTES"}
	enumComparisonOperator     = []string{"IN", "NULL", "BETWEEN", "LT", "NOT_CONTAINS", "EQ", "GT", "NOT_NULL", "NE", "LE", "BEGINS_WITH", "GE", "CONTAINS"}
	enumAttributeAction        = []string{"ADD", "PUT", "DELETE"}
)

// tableName records the failures of a table name. Data-plane operations
// take a name or a table ARN (1 to 1024 characters); a name must also be 3
// to 255 characters of [a-zA-Z0-9_.-], as in CreateTable. set is false when
// the member was absent.
func (v *violations) tableName(member, name string, set bool) {
	switch {
	case !set:
		v.null(member)
	case name == "":
		v.add(&name, member, "Member must have length greater than or equal to 1")
	case strings.HasPrefix(name, "arn:"):
		if len(name) > 1024 {
			v.add(&name, member, "Member must have length less than or equal to 1024")
		}
	default:
		v.name(member, name)
	}
}

// name records the failures of a table or index name: the pattern
// [a-zA-Z0-9_.-]+ and a length of 3 to 255.
func (v *violations) name(member, name string) {
	valid := name != ""
	for i := 0; i < len(name); i++ {
		c := name[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '.' || c == '-') {
			valid = false
		}
	}
	if !valid {
		v.add(&name, member, "Member must satisfy regular expression pattern: [a-zA-Z0-9_.-]+")
	}
	if len(name) < 3 {
		v.add(&name, member, "Member must have length greater than or equal to 3")
	}
	if len(name) > 255 {
		v.add(&name, member, "Member must have length less than or equal to 255")
	}
}

// checkTableName applies the name constraints of control-plane operations
// (CreateTable, DescribeTable, ...), whose TableName is always a name.
func checkTableName(field, name string) *apiError {
	var v violations
	v.name(field, name)
	if err := v.err(); err != nil {
		return err.(*apiError)
	}
	return nil
}
