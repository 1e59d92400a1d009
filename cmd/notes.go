package cmd

import "io"

// notes is where hints, notes and progress go: stderr, or nowhere under
// --quiet. What --quiet leaves on stderr: errors (with their hint line),
// warnings, and what --verbose, --debug and --capacity ask for. What it
// drops: the next-page command of a list, progress (applying: ..., reshard
// counts, waiting for a locked data file, local engine stopped, the bars and
// lines of import, export and counters), export's summary line, notes
// (note: ...), dry-run reminders, verify's summary line, and the try:/next:
// suggestions local serve and init print after their output.
//
// Buffered stdout is flushed first, so a note follows the output it is
// about; when stdout cannot be written the note (a next-page command for
// rows that never arrived) is dropped, and the write error is reported as
// the command ends.
func (a *app) notes() io.Writer {
	if a.set != nil && a.set.Quiet {
		return io.Discard
	}
	if a.io.Flush() != nil {
		return io.Discard
	}
	return a.io.ErrOut
}
