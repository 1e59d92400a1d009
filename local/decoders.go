package local

import (
	"errors"

	"github.com/adjl/adjl/local/internal/attr"
)

// Hand-written decoders of the hot requests (see jreader). Members a
// decoder does not read are skipped (see jreader.object), as encoding/json
// skips unknown members.

// memberItem reads an object, decoding its member name into it.
func memberItem(r *jreader, name string, it *attr.Item) error {
	return r.object(func(f string) error {
		if f != name {
			return nil
		}
		var err error
		*it, err = r.item()
		return err
	})
}

func decodePutItem(body []byte, in *putItemIn) error {
	return decodeItemWrite(body, &in.itemWriteIn, "Item", &in.Item, nil)
}

func decodeDeleteItem(body []byte, in *deleteItemIn) error {
	return decodeItemWrite(body, &in.itemWriteIn, "Key", &in.Key, nil)
}

func decodeUpdateItem(body []byte, in *updateItemIn) error {
	return decodeItemWrite(body, &in.itemWriteIn, "Key", &in.Key, func(r *jreader, k string) error {
		var err error
		switch k {
		case "UpdateExpression":
			in.UpdateExpression, err = r.optStr()
		case "AttributeUpdates":
			in.AttributeUpdates, err = readNested(r, &in.deep, r.attributeUpdates, updatesWithoutValues)
		}
		return err
	})
}

func decodeGetItem(body []byte, in *getItemIn) error {
	return decodeWith(body, func(r *jreader, k string) error {
		if k == "Key" {
			var err error
			in.Key, err = r.item()
			return err
		}
		return in.readIn.field(r, k)
	})
}

// decodeQuery reads a Query or Scan request.
func decodeQuery(body []byte, in *queryIn) error {
	return decodeWith(body, func(r *jreader, k string) error {
		var err error
		switch k {
		case "IndexName":
			in.IndexName, err = r.optStr()
		case "KeyConditionExpression":
			in.KeyConditionExpression, err = r.optStr()
		case "FilterExpression":
			in.FilterExpression, err = r.optStr()
		case "ExpressionAttributeValues":
			in.ExpressionAttributeValues, err = r.exprValues()
		case "Limit":
			in.Limit, err = r.optInt()
		case "ExclusiveStartKey":
			in.ExclusiveStartKey, err = r.item()
		case "ScanIndexForward":
			in.ScanIndexForward, err = r.optBool()
		case "Select":
			in.Select, err = r.str()
		case "Segment":
			in.Segment, err = r.optInt()
		case "TotalSegments":
			in.TotalSegments, err = r.optInt()
		case "KeyConditions":
			in.KeyConditions, err = r.legacyConds()
		case "QueryFilter":
			in.QueryFilter, err = r.legacyConds()
		case "ScanFilter":
			in.ScanFilter, err = r.legacyConds()
		case "ConditionalOperator":
			in.ConditionalOperator, err = r.str()
		default:
			err = in.readIn.field(r, k)
		}
		return err
	})
}

// batchItems recycles BatchWriteItem's item maps: see releaseBatchWrite.
var batchItems attr.ItemPool

// decodeBatchWrite reads a BatchWriteItem request; its items' maps come
// from batchItems, and the caller hands them back with releaseBatchWrite.
func decodeBatchWrite(body []byte, in *batchWriteIn) error {
	return decodeWith(body, func(r *jreader, k string) error {
		var err error
		switch k {
		case "RequestItems":
			if r.null() {
				return nil
			}
			r.items = &batchItems
			in.RequestItems = map[string][]writeRequest{}
			err = r.object(func(table string) error {
				reqs := []writeRequest{}
				err := r.array(func() error {
					var wr writeRequest
					err := r.object(func(kind string) error {
						switch kind {
						case "PutRequest":
							if r.null() {
								return nil
							}
							wr.PutRequest = &struct{ Item attr.Item }{}
							return memberItem(r, "Item", &wr.PutRequest.Item)
						case "DeleteRequest":
							if r.null() {
								return nil
							}
							wr.DeleteRequest = &struct{ Key attr.Item }{}
							return memberItem(r, "Key", &wr.DeleteRequest.Key)
						}
						return nil
					})
					reqs = append(reqs, wr)
					return err
				})
				in.RequestItems[table] = reqs
				return err
			})
		case "ReturnConsumedCapacity":
			in.ReturnConsumedCapacity, err = r.str()
		case "ReturnItemCollectionMetrics":
			in.ReturnItemCollectionMetrics, err = r.str()
		}
		return err
	})
}

func decodeTxAction(r *jreader) (*txAction, error) {
	if r.null() {
		return nil, nil
	}
	a := &txAction{}
	err := r.object(func(k string) error {
		var err error
		switch k {
		case "TableName":
			a.TableName, err = r.str()
		case "Key":
			a.Key, a.keyErr, err = txValue(r, r.item)
		case "Item":
			start := r.i
			a.Item, a.itemErr, err = txValue(r, r.item)
			if a.itemErr != nil {
				a.emptyName = hasEmptyName(r.b[start:r.i])
			} else {
				_, a.emptyName = a.Item[""]
			}
		case "ConditionExpression":
			a.ConditionExpression, err = r.optStr()
		case "UpdateExpression":
			a.UpdateExpression, err = r.optStr()
		case "ProjectionExpression":
			a.ProjectionExpression, err = r.optStr()
		case "ExpressionAttributeNames":
			a.ExpressionAttributeNames, err = r.names()
		case "ExpressionAttributeValues":
			a.ExpressionAttributeValues, a.valuesErr, err = txValue(r, r.exprValues)
		case "ReturnValuesOnConditionCheckFailure":
			a.ReturnValuesOnConditionCheckFailure, err = r.str()
		}
		return err
	})
	return a, err
}

// txValue reads a transaction action's item, key or values with read. A
// value DynamoDB refuses is returned as bad, for the action's turn, with an
// empty map in its place (the member was sent); malformed JSON is err.
func txValue(r *jreader, read func() (attr.Item, error)) (it attr.Item, bad, err error) {
	it, err = read()
	var ve *attr.ValidationError
	if errors.As(err, &ve) {
		return attr.Item{}, err, nil
	}
	return it, nil, err
}

// hasEmptyName reports whether the JSON object raw has a member named "".
func hasEmptyName(raw []byte) bool {
	found := false
	r := &jreader{b: raw}
	_ = r.object(func(k string) error {
		found = found || k == ""
		return nil
	})
	return found
}

func decodeTransactWrite(body []byte, in *transactWriteIn) error {
	return decodeWith(body, func(r *jreader, k string) error {
		var err error
		switch k {
		case "TransactItems":
			if r.null() {
				return nil
			}
			in.TransactItems = []transactWriteItem{}
			err = r.array(func() error {
				var ti transactWriteItem
				err := r.object(func(kind string) error {
					var err error
					switch kind {
					case "ConditionCheck":
						ti.ConditionCheck, err = decodeTxAction(r)
					case "Put":
						ti.Put, err = decodeTxAction(r)
					case "Delete":
						ti.Delete, err = decodeTxAction(r)
					case "Update":
						ti.Update, err = decodeTxAction(r)
					}
					return err
				})
				in.TransactItems = append(in.TransactItems, ti)
				return err
			})
		case "ClientRequestToken":
			in.ClientRequestToken, err = r.optStr()
		case "ReturnConsumedCapacity":
			in.ReturnConsumedCapacity, err = r.str()
		case "ReturnItemCollectionMetrics":
			in.ReturnItemCollectionMetrics, err = r.str()
		}
		return err
	})
}
