//go:build !linux

package kv

// dontNeed does nothing where the engine does not release mapped pages.
func dontNeed(addr, size uintptr) {}

// residentFileBytes is unknown here: reads never release mapped pages.
func residentFileBytes() (int64, bool) { return 0, false }
