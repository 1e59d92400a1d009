package local

import "github.com/adjl/adjl/local/internal/attr"

// Hand-written decoders of the hot requests (see jreader). Unknown members
// are skipped, as encoding/json does.

func skipField(r *jreader) error {
	_, err := r.skip()
	return err
}

// memberItem reads an object, decoding its member name into it and
// skipping the others.
func memberItem(r *jreader, name string, it *attr.Item) error {
	return r.object(func(f string) error {
		if f == name {
			var err error
			*it, err = r.item()
			return err
		}
		return skipField(r)
	})
}

func decodePutItem(body []byte, in *putItemIn) error {
	return decodeItemWrite(body, &in.itemWriteIn, "Item", &in.Item, nil)
}

func decodeDeleteItem(body []byte, in *deleteItemIn) error {
	return decodeItemWrite(body, &in.itemWriteIn, "Key", &in.Key, nil)
}

func decodeUpdateItem(body []byte, in *updateItemIn) error {
	return decodeItemWrite(body, &in.itemWriteIn, "Key", &in.Key, func(r *jreader, k string) (bool, error) {
		var err error
		switch k {
		case "UpdateExpression":
			in.UpdateExpression, err = r.optStr()
		case "AttributeUpdates":
			in.AttributeUpdates, err = r.attributeUpdates()
		default:
			return false, nil
		}
		return true, err
	})
}

func decodeGetItem(body []byte, in *getItemIn) error {
	return decodeWith(body, func(r *jreader, k string) error {
		var err error
		switch k {
		case "TableName":
			err = r.tableName(&in.TableName, &in.tableNameSet)
		case "Key":
			in.Key, err = r.item()
		case "ConsistentRead":
			err = r.boolInto(&in.ConsistentRead)
		case "ProjectionExpression":
			in.ProjectionExpression, err = r.optStr()
		case "ExpressionAttributeNames":
			in.ExpressionAttributeNames, err = r.names()
		case "AttributesToGet":
			in.AttributesToGet, err = r.strs()
		case "ReturnConsumedCapacity":
			in.ReturnConsumedCapacity, err = r.str()
		default:
			err = skipField(r)
		}
		return err
	})
}

func decodeQuery(body []byte, in *queryIn) error {
	return decodeWith(body, func(r *jreader, k string) error {
		var err error
		switch k {
		case "TableName":
			err = r.tableName(&in.TableName, &in.tableNameSet)
		case "IndexName":
			in.IndexName, err = r.optStr()
		case "KeyConditionExpression":
			in.KeyConditionExpression, err = r.optStr()
		case "FilterExpression":
			in.FilterExpression, err = r.optStr()
		case "ProjectionExpression":
			in.ProjectionExpression, err = r.optStr()
		case "ExpressionAttributeNames":
			in.ExpressionAttributeNames, err = r.names()
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
		case "ConsistentRead":
			err = r.boolInto(&in.ConsistentRead)
		case "ReturnConsumedCapacity":
			in.ReturnConsumedCapacity, err = r.str()
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
		case "AttributesToGet":
			in.AttributesToGet, err = r.strs()
		case "ConditionalOperator":
			in.ConditionalOperator, err = r.str()
		default:
			err = skipField(r)
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
						return skipField(r)
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
		default:
			err = skipField(r)
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
			a.Key, err = r.item()
		case "Item":
			a.Item, err = r.item()
		case "ConditionExpression":
			a.ConditionExpression, err = r.optStr()
		case "UpdateExpression":
			a.UpdateExpression, err = r.optStr()
		case "ProjectionExpression":
			a.ProjectionExpression, err = r.optStr()
		case "ExpressionAttributeNames":
			a.ExpressionAttributeNames, err = r.names()
		case "ExpressionAttributeValues":
			a.ExpressionAttributeValues, err = r.exprValues()
		case "ReturnValuesOnConditionCheckFailure":
			a.ReturnValuesOnConditionCheckFailure, err = r.str()
		default:
			err = skipField(r)
		}
		return err
	})
	return a, err
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
					default:
						err = skipField(r)
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
		default:
			err = skipField(r)
		}
		return err
	})
}
