// Command ansi2png draws a terminal screen captured with its colours (tmux
// capture-pane -e -p) as a PNG, for screenshots in the docs:
//
//	go run . -font /usr/share/fonts/truetype/dejavu/DejaVuSansMono.ttf < screen.ans > screen.png
//
// It understands the SGR sequences a capture holds (bold, faint, reverse,
// the 16 colours, 256 colours, 24-bit colours) and draws each cell of the
// grid in a monospace font. It is its own module so that adjl does not
// depend on golang.org/x/image.
package main

import (
	"bufio"
	"flag"
	"fmt"
	"image"
	"image/color"
	"image/draw"
	"image/png"
	"io"
	"os"
	"strconv"
	"strings"

	"golang.org/x/image/font"
	"golang.org/x/image/font/opentype"
	"golang.org/x/image/math/fixed"
)

func main() {
	regular := flag.String("font", "/usr/share/fonts/truetype/dejavu/DejaVuSansMono.ttf", "monospace TrueType `FILE`")
	bold := flag.String("bold", "/usr/share/fonts/truetype/dejavu/DejaVuSansMono-Bold.ttf", "its bold face (optional)")
	size := flag.Float64("size", 14, "font size in pixels")
	cols := flag.Int("cols", 0, "columns (default: the longest line)")
	flag.Parse()
	if err := run(os.Stdin, os.Stdout, *regular, *bold, *size, *cols); err != nil {
		fmt.Fprintln(os.Stderr, "ansi2png:", err)
		os.Exit(1)
	}
}

// cell is one character on the grid with its attributes.
type cell struct {
	r       rune
	fg, bg  color.RGBA
	bold    bool
	faint   bool
	reverse bool
}

var (
	defaultFG = color.RGBA{0xd8, 0xd8, 0xd8, 0xff}
	defaultBG = color.RGBA{0x1c, 0x1f, 0x24, 0xff}
	// ansi16 is a dark-theme palette for SGR 30-37 and 90-97.
	ansi16 = [16]color.RGBA{
		{0x1c, 0x1f, 0x24, 0xff}, {0xe0, 0x6c, 0x75, 0xff}, {0x98, 0xc3, 0x79, 0xff}, {0xe5, 0xc0, 0x7b, 0xff},
		{0x61, 0xaf, 0xef, 0xff}, {0xc6, 0x78, 0xdd, 0xff}, {0x56, 0xb6, 0xc2, 0xff}, {0xd8, 0xd8, 0xd8, 0xff},
		{0x5c, 0x63, 0x70, 0xff}, {0xff, 0x7b, 0x86, 0xff}, {0xb5, 0xe8, 0x90, 0xff}, {0xff, 0xd6, 0x8a, 0xff},
		{0x7d, 0xc4, 0xff, 0xff}, {0xde, 0x8f, 0xf5, 0xff}, {0x6f, 0xd8, 0xe4, 0xff}, {0xff, 0xff, 0xff, 0xff},
	}
)

// parse turns captured text into rows of cells.
func parse(r io.Reader) ([][]cell, error) {
	var rows [][]cell
	cur := cell{fg: defaultFG, bg: defaultBG}
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		var row []cell
		line := []rune(sc.Text())
		for i := 0; i < len(line); i++ {
			if line[i] == 0x1b && i+1 < len(line) && line[i+1] == '[' {
				j := i + 2
				for j < len(line) && (line[j] < 0x40 || line[j] > 0x7e) {
					j++
				}
				if j < len(line) && line[j] == 'm' {
					sgr(&cur, string(line[i+2:j]))
				}
				i = j
				continue
			}
			c := cur
			c.r = line[i]
			row = append(row, c)
		}
		rows = append(rows, row)
	}
	return rows, sc.Err()
}

// sgr applies one Select Graphic Rendition sequence's parameters.
func sgr(c *cell, params string) {
	if params == "" {
		params = "0"
	}
	ps := strings.Split(params, ";")
	for i := 0; i < len(ps); i++ {
		n, _ := strconv.Atoi(ps[i])
		switch {
		case n == 0:
			*c = cell{fg: defaultFG, bg: defaultBG}
		case n == 1:
			c.bold = true
		case n == 2:
			c.faint = true
		case n == 22:
			c.bold, c.faint = false, false
		case n == 7:
			c.reverse = true
		case n == 27:
			c.reverse = false
		case n >= 30 && n <= 37:
			c.fg = ansi16[n-30]
		case n >= 90 && n <= 97:
			c.fg = ansi16[n-90+8]
		case n == 39:
			c.fg = defaultFG
		case n >= 40 && n <= 47:
			c.bg = ansi16[n-40]
		case n >= 100 && n <= 107:
			c.bg = ansi16[n-100+8]
		case n == 49:
			c.bg = defaultBG
		case (n == 38 || n == 48) && i+1 < len(ps):
			var col color.RGBA
			switch ps[i+1] {
			case "5":
				if i+2 < len(ps) {
					k, _ := strconv.Atoi(ps[i+2])
					col = xterm256(k)
					i += 2
				}
			case "2":
				if i+4 < len(ps) {
					r, _ := strconv.Atoi(ps[i+2])
					g, _ := strconv.Atoi(ps[i+3])
					b, _ := strconv.Atoi(ps[i+4])
					col = color.RGBA{uint8(r), uint8(g), uint8(b), 0xff}
					i += 4
				}
			}
			if n == 38 {
				c.fg = col
			} else {
				c.bg = col
			}
		}
	}
}

// xterm256 is colour k of the xterm 256-colour palette.
func xterm256(k int) color.RGBA {
	switch {
	case k < 16:
		return ansi16[k]
	case k < 232:
		k -= 16
		v := func(x int) uint8 {
			if x == 0 {
				return 0
			}
			return uint8(55 + 40*x)
		}
		return color.RGBA{v(k / 36), v(k / 6 % 6), v(k % 6), 0xff}
	}
	g := uint8(8 + 10*(k-232))
	return color.RGBA{g, g, g, 0xff}
}

func loadFace(path string, size float64) (font.Face, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	f, err := opentype.Parse(b)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return opentype.NewFace(f, &opentype.FaceOptions{Size: size, DPI: 72, Hinting: font.HintingFull})
}

func mix(a, b color.RGBA, t float64) color.RGBA {
	m := func(x, y uint8) uint8 { return uint8(float64(x)*(1-t) + float64(y)*t) }
	return color.RGBA{m(a.R, b.R), m(a.G, b.G), m(a.B, b.B), 0xff}
}

func run(in io.Reader, out io.Writer, regularPath, boldPath string, size float64, cols int) error {
	rows, err := parse(in)
	if err != nil {
		return err
	}
	for len(rows) > 0 && len(rows[len(rows)-1]) == 0 {
		rows = rows[:len(rows)-1] // the blank lines below the view
	}
	regular, err := loadFace(regularPath, size)
	if err != nil {
		return err
	}
	boldFace := regular
	if f, err := loadFace(boldPath, size); err == nil {
		boldFace = f
	}
	adv, _ := regular.GlyphAdvance('M')
	cw := adv.Ceil()
	m := regular.Metrics()
	ch := (m.Ascent + m.Descent).Ceil() // box-drawing lines join from row to row
	for _, r := range rows {
		cols = max(cols, len(r))
	}
	const pad = 12
	img := image.NewRGBA(image.Rect(0, 0, cols*cw+2*pad, len(rows)*ch+2*pad))
	draw.Draw(img, img.Bounds(), &image.Uniform{defaultBG}, image.Point{}, draw.Src)
	for y, row := range rows {
		for x, c := range row {
			fg, bg := c.fg, c.bg
			if c.reverse {
				fg, bg = bg, fg
			}
			if c.faint {
				fg = mix(fg, bg, 0.45)
			}
			rect := image.Rect(pad+x*cw, pad+y*ch, pad+(x+1)*cw, pad+(y+1)*ch)
			draw.Draw(img, rect, &image.Uniform{bg}, image.Point{}, draw.Src)
			if c.r == ' ' {
				continue
			}
			face := regular
			if c.bold {
				face = boldFace
			}
			d := font.Drawer{Dst: img, Src: &image.Uniform{fg}, Face: face,
				Dot: fixed.P(pad+x*cw, pad+y*ch+m.Ascent.Ceil())}
			d.DrawString(string(c.r))
		}
	}
	return png.Encode(out, img)
}
