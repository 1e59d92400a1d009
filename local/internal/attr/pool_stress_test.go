package attr

import (
	"fmt"
	"reflect"
	"runtime"
	"sync"
	"testing"
)

// TestItemPoolConcurrentHoldersKeepTheirMaps: goroutines decode items
// from one pool, hold them while others decode (successfully and with
// errors that hand partly filled maps back) and release theirs, and check
// that what they hold never changes until they hand it back themselves.
func TestItemPoolConcurrentHoldersKeepTheirMaps(t *testing.T) {
	var p ItemPool
	bad := []string{`{"a":{"S":"1"},"b":{"X":"2"}}`, `{"a":{"N":"x"}}`, `{"a":`, `{"a":{"S":"1"} "b":{"S":"2"}}`}
	var wg sync.WaitGroup
	errs := make(chan error, 8)
	for g := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for round := range 400 {
				width := (g*7 + round) % 40 // some wider than the pool keeps
				src := "{"
				for i := range width {
					if i > 0 {
						src += ","
					}
					src += fmt.Sprintf(`"g%d_%d":{"S":"%d/%d/%d"}`, g, i, g, round, i)
				}
				src += "}"
				held := make([]Item, 0, 3)
				for range 3 {
					it, end, err := p.DecodeItemAt(src, 0)
					if err != nil || end != len(src) {
						errs <- fmt.Errorf("decode: end %d err %v", end, err)
						return
					}
					held = append(held, it)
				}
				if _, _, err := p.DecodeItemAt(bad[round%len(bad)], 0); err == nil {
					errs <- fmt.Errorf("bad item %s decoded", bad[round%len(bad)])
					return
				}
				runtime.Gosched()
				want, err := UnmarshalItem([]byte(src))
				if err != nil {
					errs <- err
					return
				}
				for _, it := range held {
					if !EqualItems(it, want) {
						errs <- fmt.Errorf("goroutine %d round %d: held item changed to %v, want %v", g, round, it, want)
						return
					}
				}
				if reflect.ValueOf(held[0]).UnsafePointer() == reflect.ValueOf(held[1]).UnsafePointer() ||
					reflect.ValueOf(held[1]).UnsafePointer() == reflect.ValueOf(held[2]).UnsafePointer() {
					errs <- fmt.Errorf("two decodes returned one map")
					return
				}
				for _, it := range held {
					p.Put(it)
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
}

// TestItemPoolDistinctMaps: a map handed out twice without a Put
// between would make two decoded items one.
func TestItemPoolDistinctMaps(t *testing.T) {
	var p ItemPool
	for round := range 100 {
		a, _, errA := p.DecodeItemAt(`{"k":{"S":"a"}}`, 0)
		b, _, errB := p.DecodeItemAt(`{"k":{"S":"b"}}`, 0)
		if errA != nil || errB != nil {
			t.Fatal(errA, errB)
		}
		if a["k"].Str != "a" || b["k"].Str != "b" {
			t.Fatalf("round %d: two decodes share a map: %v %v", round, a, b)
		}
		p.Put(a)
		p.Put(b)
	}
}
