package attr

import "sync"

// ItemPool recycles the top-level maps of decoded items. A request that
// decodes many items and keeps none of them once it has answered (a
// BatchWriteItem stores their encodings, not the maps) hands them back:
// the item maps were the largest allocation of a bulk write (1.3 KB per
// six-attribute item), and allocation is what sets the garbage collector's
// pace.
type ItemPool struct{ p sync.Pool }

// maxPooledAttrs bounds the maps kept: clear keeps a map's capacity, and a
// rare wide item should not pin a large map in the pool.
const maxPooledAttrs = 32

// DecodeItemAt is DecodeItemAt into a map from the pool.
func (p *ItemPool) DecodeItemAt(src string, off int) (Item, int, error) {
	m, _ := p.p.Get().(Item)
	it, end, err := decodeItemAt(src, off, m)
	if err != nil {
		p.Put(m) // partly filled
	}
	return it, end, err
}

// Put hands it back. The caller must keep no reference to the map itself
// (its values, copied out, stay valid).
func (p *ItemPool) Put(it Item) {
	if it == nil || len(it) > maxPooledAttrs {
		return
	}
	clear(it)
	p.p.Put(it)
}
