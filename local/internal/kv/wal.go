package kv

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"sync"
	"sync/atomic"
)

// The write-ahead log file is a header block and then records, one per
// committed transaction.
//
// Header (logHeaderSize bytes): logMagic, the epoch (uint64), and the CRC-32C
// of both. A checkpoint ends by writing the next epoch, which retires every
// record at once; the file is overwritten in place, not truncated, because
// on ext4 an fsync that also has to commit a new file length and new
// blocks costs about twice one that only has to write data (bench/results/
// has the figures). For the same reason the file grows by writing zeros
// ahead of the records.
//
// Record: 4-byte little-endian payload length, then the CRC-32C of the epoch
// and the payload, then the payload — the transaction's operations in order,
// each an op byte and uvarint-length-prefixed bucket name, key and value as
// the op needs. Replay stops at the first record that is empty, torn, or
// from an older epoch: nothing after it was acknowledged in this epoch.

const (
	opPut    byte = 1 // bucket, key, value
	opDel    byte = 2 // bucket, key
	opCreate byte = 3 // bucket
	opDrop   byte = 4 // bucket
)

const (
	logMagic      = "adjl-wal-1\n"
	logHeaderSize = 4096
	// The file grows by its own size, between these bounds: a CLI process
	// that writes one edge pays for 64 KiB of zeros, a bulk import for few
	// growth steps. Close leaves at most logKeepBytes allocated.
	logGrowMin   = 64 << 10
	logGrowMax   = 4 << 20
	logKeepBytes = 4 << 20
)

// castagnoli is built on first use: building it costs a quarter of a
// millisecond, at the start of every command, and only commands that open a
// data file use it.
var castagnoli = sync.OnceValue(func() *crc32.Table { return crc32.MakeTable(crc32.Castagnoli) })

// zeros is written ahead of the records to grow a log; never modified.
var zeros = make([]byte, logGrowMin)

// walLog is the log file and where its records end.
type walLog struct {
	f     *os.File
	epoch uint64
	end   int64 // offset after the last record of this epoch
	alloc int64 // file length: zeros or retired records beyond end
	frame []byte

	// Log sequence numbers count bytes written since open.
	written  atomic.Int64
	syncMu   sync.Mutex
	syncDone *sync.Cond // broadcast when a sync ends
	syncing  bool
	durable  int64        // records up to here are on disk
	syncs    atomic.Int64 // fsyncs made for records, for benchmarks
	syncErr  error        // a failed sync: the log's tail is unknown until reopened
}

// openLog opens (creating if needed) the log at path and returns it with the
// records of its epoch, not yet applied.
func openLog(path string) (*walLog, []byte, error) {
	_, statErr := os.Stat(path)
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, nil, fmt.Errorf("open write-ahead log: %w", err)
	}
	l := &walLog{f: f}
	l.syncDone = sync.NewCond(&l.syncMu)
	fail := func(err error) (*walLog, []byte, error) {
		f.Close()
		return nil, nil, err
	}
	st, err := f.Stat()
	if err != nil {
		return fail(fmt.Errorf("read write-ahead log: %w", err))
	}
	l.alloc = st.Size()
	header := make([]byte, logHeaderSize)
	n, _ := f.ReadAt(header, 0)
	epoch, ok := readLogHeader(header[:n])
	if !ok {
		// New, or torn while a checkpoint wrote the next epoch — after the
		// data file had everything. Either way there is nothing to replay;
		// the body goes too, so no stale record can ever pass for a new one
		// (openWAL gives the log a fresh epoch before it takes records).
		if err := f.Truncate(0); err != nil {
			return fail(fmt.Errorf("reset write-ahead log: %w", err))
		}
		l.alloc = 0
		if err := l.writeHeader(0); err != nil {
			return fail(err)
		}
		if os.IsNotExist(statErr) {
			// A new file's name must survive a power cut like its contents.
			if err := syncDir(filepath.Dir(path)); err != nil {
				return fail(err)
			}
		}
		return l, nil, nil
	}
	l.epoch = epoch
	// Read records, not the whole file: past them lie zeros or retired
	// records, up to megabytes that every process would otherwise read.
	size := l.alloc - logHeaderSize
	records := readRecords(bufio.NewReader(io.NewSectionReader(f, logHeaderSize, size)), size, epoch)
	l.end = logHeaderSize + int64(len(records))
	return l, records, nil
}

func readLogHeader(data []byte) (epoch uint64, ok bool) {
	n := len(logMagic)
	if len(data) < logHeaderSize || string(data[:n]) != logMagic {
		return 0, false
	}
	epoch = binary.LittleEndian.Uint64(data[n:])
	sum := binary.LittleEndian.Uint32(data[n+8:])
	return epoch, crc32.Checksum(data[:n+8], castagnoli()) == sum
}

// writeHeader starts epoch: the records written so far no longer count.
func (l *walLog) writeHeader(epoch uint64) error {
	h := make([]byte, logHeaderSize)
	n := copy(h, logMagic)
	binary.LittleEndian.PutUint64(h[n:], epoch)
	binary.LittleEndian.PutUint32(h[n+8:], crc32.Checksum(h[:n+8], castagnoli()))
	if _, err := l.f.WriteAt(h, 0); err != nil {
		return fmt.Errorf("write write-ahead log header: %w", err)
	}
	if err := l.f.Sync(); err != nil {
		return fmt.Errorf("sync write-ahead log: %w", err)
	}
	l.epoch, l.end = epoch, logHeaderSize
	l.alloc = max(l.alloc, logHeaderSize)
	return nil
}

// readRecords returns the run of whole records of epoch at the start of r,
// which holds size bytes.
func readRecords(r *bufio.Reader, size int64, epoch uint64) []byte {
	var out []byte
	var head [8]byte
	for {
		if _, err := io.ReadFull(r, head[:]); err != nil {
			return out // end of file, or a torn frame header
		}
		n := binary.LittleEndian.Uint32(head[:])
		if n == 0 || int64(n) > size-int64(len(out))-8 {
			return out // no record, or a length that only damage makes
		}
		start := len(out)
		out = append(out, head[:]...)
		out = append(out, make([]byte, n)...)
		payload := out[start+8:]
		if _, err := io.ReadFull(r, payload); err != nil {
			return out[:start]
		}
		if recordSum(epoch, payload) != binary.LittleEndian.Uint32(head[4:]) || !validPayload(payload) {
			return out[:start]
		}
	}
}

func recordSum(epoch uint64, payload []byte) uint32 {
	var e [8]byte
	binary.LittleEndian.PutUint64(e[:], epoch)
	return crc32.Update(crc32.Checksum(e[:], castagnoli()), castagnoli(), payload)
}

// write appends one transaction's record (the caller holds the store's write
// lock) and returns its log sequence number for syncTo.
func (l *walLog) write(payload []byte) (lsn int64, err error) {
	l.frame = append(l.frame[:0], make([]byte, 8)...)
	binary.LittleEndian.PutUint32(l.frame, uint32(len(payload)))
	binary.LittleEndian.PutUint32(l.frame[4:], recordSum(l.epoch, payload))
	l.frame = append(l.frame, payload...)
	if need := l.end + int64(len(l.frame)); need > l.alloc {
		grow := min(max(l.alloc, logGrowMin), logGrowMax)
		if err := l.zeroTo(max(need, l.alloc+grow)); err != nil {
			return 0, err
		}
	}
	if _, err := l.f.WriteAt(l.frame, l.end); err != nil {
		return 0, fmt.Errorf("write-ahead log: %w", err)
	}
	l.end += int64(len(l.frame))
	return l.written.Add(int64(len(l.frame))), nil
}

// syncTo returns once every record up to lsn is on disk. One caller syncs
// at a time, for everything written so far; the others wait for it, and a
// sync that began before their record was written does not count for them.
//
// With yield (other requests are being served), the syncer yields once
// before it notes how far the log goes: goroutines that are runnable at that
// moment are typically writers about to append their records, and this
// fsync then covers them instead of the next one: with the leader's yield
// in Group.Do, an ingest from concurrent writers makes far fewer fsyncs
// (bench/results/ has the figures).
func (l *walLog) syncTo(lsn int64, yield bool) error {
	l.syncMu.Lock()
	defer l.syncMu.Unlock()
	for l.durable < lsn {
		if l.syncErr != nil {
			return l.syncErr
		}
		if l.syncing {
			l.syncDone.Wait()
			continue
		}
		l.syncing = true
		l.syncMu.Unlock()
		if yield {
			runtime.Gosched()
		}
		target := l.written.Load()
		l.syncs.Add(1)
		err := l.f.Sync() // fsync: on a pre-zeroed log it costs what fdatasync would
		l.syncMu.Lock()
		l.syncing = false
		if err != nil {
			l.syncErr = fmt.Errorf("sync write-ahead log: %w", err)
		} else {
			l.durable = max(l.durable, target)
		}
		l.syncDone.Broadcast()
	}
	return nil
}

// allDurable records that everything written is safe elsewhere (a
// checkpoint put it in the bbolt file).
func (l *walLog) allDurable() {
	l.syncMu.Lock()
	l.durable = max(l.durable, l.written.Load())
	l.syncMu.Unlock()
	l.syncDone.Broadcast()
}

func (l *walLog) failed() error {
	l.syncMu.Lock()
	defer l.syncMu.Unlock()
	return l.syncErr
}

// zeroTo extends the file with zeros up to size; the next sync writes them.
func (l *walLog) zeroTo(size int64) error {
	for l.alloc < size {
		n := min(int64(len(zeros)), size-l.alloc)
		if _, err := l.f.WriteAt(zeros[:n], l.alloc); err != nil {
			return fmt.Errorf("grow write-ahead log: %w", err)
		}
		l.alloc += n
	}
	return nil
}

// close gives back space beyond logKeepBytes, if every record is retired,
// and closes the file.
func (l *walLog) close() error {
	var err error
	if l.alloc > logKeepBytes && l.end == logHeaderSize { // only a retired log
		err = l.f.Truncate(logKeepBytes)
	}
	if cerr := l.f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("close write-ahead log: %w", err)
	}
	return nil
}

func syncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return fmt.Errorf("sync data directory: %w", err)
	}
	defer d.Close()
	if err := d.Sync(); err != nil {
		return fmt.Errorf("sync data directory: %w", err)
	}
	return nil
}

func appendOp(rec []byte, op byte, name, key, value []byte) []byte {
	rec = append(rec, op)
	rec = appendBytes(rec, name)
	switch op {
	case opPut:
		rec = appendBytes(rec, key)
		rec = appendBytes(rec, value)
	case opDel:
		rec = appendBytes(rec, key)
	}
	return rec
}

func appendBytes(dst, b []byte) []byte {
	dst = binary.AppendUvarint(dst, uint64(len(b)))
	return append(dst, b...)
}

// logOp is one decoded operation of a record.
type logOp struct {
	op        byte
	name, key []byte
	value     []byte
}

var errBadRecord = errors.New("malformed write-ahead log record")

// eachOp calls fn for every operation of payload, in order.
func eachOp(p []byte, fn func(logOp)) error {
	for len(p) > 0 {
		o := logOp{op: p[0]}
		p = p[1:]
		var ok bool
		if o.name, ok = readBytes(&p); !ok {
			return errBadRecord
		}
		switch o.op {
		case opPut:
			if o.key, ok = readBytes(&p); !ok {
				return errBadRecord
			}
			if o.value, ok = readBytes(&p); !ok {
				return errBadRecord
			}
		case opDel:
			if o.key, ok = readBytes(&p); !ok {
				return errBadRecord
			}
		case opCreate, opDrop:
		default:
			return errBadRecord
		}
		if fn != nil {
			fn(o)
		}
	}
	return nil
}

func validPayload(p []byte) bool { return eachOp(p, nil) == nil }

func readBytes(p *[]byte) ([]byte, bool) {
	n, w := binary.Uvarint(*p)
	if w <= 0 || n > uint64(len(*p)-w) {
		return nil, false
	}
	b := (*p)[w : w+int(n) : w+int(n)]
	*p = (*p)[w+int(n):]
	return b, true
}
