package local

import (
	"strings"

	"github.com/adjl/adjl/local/internal/kv"
)

// tableByArn resolves a table ARN (the resource of the tag operations) to a
// table name.
func (e *Engine) tableByArn(arn string) (string, error) {
	if arn == "" {
		return "", validationf("1 validation error detected: Value null at 'resourceArn' failed to satisfy constraint: Member must not be null")
	}
	_, name, ok := strings.Cut(arn, ":table/")
	if !ok || strings.Contains(name, "/") {
		return "", validationf("Invalid TableArn: Invalid ResourceArn provided as input %s", arn)
	}
	t := e.lookup(name)
	if t == nil || t.stored.Desc.TableArn != arn {
		return "", &apiError{Type: errNotFound, Message: "Requested resource not found: ResourcArn: " + arn + " not found"}
	}
	return name, nil
}

type tagResourceIn struct {
	ResourceArn string
	Tags        []tag
}

type untagResourceIn struct {
	ResourceArn string
	TagKeys     []string
}

type listTagsOfResourceIn struct {
	ResourceArn string
	NextToken   *string
}

func checkTags(tags []tag) *apiError {
	for _, tg := range tags {
		if len(tg.Key) < 1 || len(tg.Key) > 128 {
			return validationf("1 validation error detected: Value '%s' at 'tags.member.key' failed to satisfy constraint: Member must have length less than or equal to 128", tg.Key)
		}
		if len(tg.Value) > 256 {
			return validationf("1 validation error detected: Value '%s' at 'tags.member.value' failed to satisfy constraint: Member must have length less than or equal to 256", tg.Value)
		}
	}
	return nil
}

// tagResource is TagResource.
func (e *Engine) tagResource(in *tagResourceIn) ([]byte, error) {
	if len(in.Tags) == 0 {
		return nil, validationf("1 validation error detected: Value null at 'tags' failed to satisfy constraint: Member must not be null")
	}
	if err := checkTags(in.Tags); err != nil {
		return nil, err
	}
	return e.changeTags(in.ResourceArn, func(st *storedTable) error {
		for _, nt := range in.Tags {
			replaced := false
			for i := range st.Tags {
				if st.Tags[i].Key == nt.Key {
					st.Tags[i].Value = nt.Value
					replaced = true
				}
			}
			if !replaced {
				st.Tags = append(st.Tags, nt)
			}
		}
		if len(st.Tags) > 50 {
			return &apiError{Type: errLimitExceeded, Message: "The number of tags exceeds the limit of 50"}
		}
		return nil
	})
}

// untagResource is UntagResource.
func (e *Engine) untagResource(in *untagResourceIn) ([]byte, error) {
	if in.TagKeys == nil {
		return nil, validationf("1 validation error detected: Value null at 'tagKeys' failed to satisfy constraint: Member must not be null")
	}
	drop := map[string]bool{}
	for _, k := range in.TagKeys {
		drop[k] = true
	}
	return e.changeTags(in.ResourceArn, func(st *storedTable) error {
		var kept []tag
		for _, tg := range st.Tags {
			if !drop[tg.Key] {
				kept = append(kept, tg)
			}
		}
		st.Tags = kept
		return nil
	})
}

// changeTags applies change to the tags of the table arn names and answers
// TagResource or UntagResource.
func (e *Engine) changeTags(arn string, change func(st *storedTable) error) ([]byte, error) {
	name, err := e.tableByArn(arn)
	if err != nil {
		return nil, err
	}
	_, err = e.alterTable(name, func(_ kv.Tx, _ *table, st *storedTable) error { return change(st) })
	if err != nil {
		return nil, err
	}
	return []byte("{}"), nil
}

// listTagsOfResource is ListTagsOfResource.
func (e *Engine) listTagsOfResource(in *listTagsOfResourceIn) ([]byte, error) {
	name, err := e.tableByArn(in.ResourceArn)
	if ae, ok := err.(*apiError); ok && ae.Type == errNotFound {
		return nil, accessDenied("ListTagsOfResource", in.ResourceArn)
	}
	if err != nil {
		return nil, err
	}
	t := e.lookup(name)
	if t == nil {
		return nil, accessDenied("ListTagsOfResource", in.ResourceArn)
	}
	tags := t.stored.Tags
	if tags == nil {
		tags = []tag{}
	}
	return encodeResponse(struct{ Tags []tag }{tags})
}

// accessDenied is DynamoDB's answer to ListTagsOfResource of an ARN naming
// no table: it authorizes the request against the resource before it looks
// for it, and the caller may not read a resource that does not exist.
func accessDenied(op, arn string) *apiError {
	return &apiError{Type: errAccessDenied,
		Message: "User: arn:aws:iam::" + account + ":root is not authorized to perform: dynamodb:" + op + " on resource: " + arn}
}
