//go:build race

package ops

// raceEnabled shortens the streaming test under the race detector, which
// makes each item ~5x slower; the memory bound is the same.
const raceEnabled = true
