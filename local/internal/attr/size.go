package attr

// Size returns the bytes DynamoDB counts for a value (without its attribute
// name), following "Item sizes and formats": strings and binaries by raw
// length, numbers by base-100 digit pairs plus one, BOOL and NULL one byte,
// lists and maps 3 bytes plus one byte per element plus their contents.
// The engine uses it for the 400 KB item limit and consumed capacity.
func Size(v Value) int {
	switch v.Kind {
	case S:
		return len(v.Str)
	case N:
		return numberSize(v.Str)
	case B:
		return len(v.Bytes)
	case BOOL, NULL:
		return 1
	case M:
		n := 3
		for k, e := range v.Map {
			n += len(k) + Size(e) + 1
		}
		return n
	case L:
		n := 3
		for _, e := range v.List {
			n += Size(e) + 1
		}
		return n
	case SS:
		return totalLen(v.Strs)
	case NS:
		n := 0
		for _, s := range v.Strs {
			n += numberSize(s)
		}
		return n
	case BS:
		return totalLen(v.Bins)
	}
	return 0
}

// totalLen is the sum of the lengths of the strings or binaries in set.
func totalLen[E ~string | ~[]byte](set []E) int {
	n := 0
	for _, e := range set {
		n += len(e)
	}
	return n
}

// numberSize counts the centesimal (two-digit) groups DynamoDB stores,
// aligned on the decimal exponent, plus one byte (and one more if negative).
func numberSize(s string) int {
	d, err := parseDecimal(s)
	if err != nil || d.IsZero() {
		return 1
	}
	first := d.Exp - 1            // power of ten of the first significant digit
	last := d.Exp - len(d.Digits) // power of ten of the last one
	n := 1 + floorDiv2(first) - floorDiv2(last) + 1
	if d.Neg {
		n++
	}
	return n
}

func floorDiv2(x int) int {
	if x >= 0 {
		return x / 2
	}
	return -((-x + 1) / 2)
}

// ItemSize returns the DynamoDB size of an item: attribute name lengths plus
// value sizes.
func ItemSize(it Item) int {
	n := 0
	for k, v := range it {
		n += len(k) + Size(v)
	}
	return n
}
