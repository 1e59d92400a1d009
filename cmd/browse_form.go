package cmd

import (
	"fmt"
	"strings"

	"charm.land/bubbles/v2/textinput"
	tea "charm.land/bubbletea/v2"
	"github.com/adjl/adjl/ops"
	"github.com/adjl/adjl/schema"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// browseForm is the form of e (an edge's or the item's attributes) and of
// a (a new edge's): one field per declared attribute, typed by the schema
// and filled with the value shown. Tab moves, ctrl+u clears a field, enter
// saves, esc cancels.
type browseForm struct {
	title  string
	fields []browseField
	at     int
	// adding: a new edge; every field given is written.
	adding bool
	// save writes what the form changed: expect is every field's value
	// as shown (nil: unset), set the new values, remove the fields cleared.
	save func(m *browseModel, expect ops.Expect, set map[string]any, remove []string) tea.Cmd
}

// browseField is one attribute of the form and the value it was shown.
type browseField struct {
	attr    schema.Attribute
	input   textinput.Model
	old     types.AttributeValue
	oldText string
}

// newBrowseForm is a form on attrs, filled from item.
func newBrowseForm(title string, attrs []schema.Attribute, item ops.Item) *browseForm {
	f := &browseForm{title: title}
	for i, a := range attrs {
		fd := browseField{attr: a, old: item[a.Name]}
		if fd.old != nil {
			v, err := ops.PlainValue(fd.old)
			if err == nil {
				fd.oldText = cell(v)
			}
		}
		fd.input = newTextField(fd.oldText)
		if i > 0 {
			fd.input.Blur()
		}
		f.fields = append(f.fields, fd)
	}
	return f
}

// move puts the cursor on field i.
func (f *browseForm) move(i int) {
	f.fields[f.at].input.Blur()
	f.at = (i + len(f.fields)) % len(f.fields)
	f.fields[f.at].input.Focus()
}

func (m *browseModel) formKey(msg tea.KeyPressMsg) tea.Cmd {
	f := m.form
	switch msg.String() {
	case "esc":
		m.form, m.note = nil, "edit cancelled; nothing written"
	case "tab", "down":
		f.move(f.at + 1)
	case "shift+tab", "up":
		f.move(f.at - 1)
	case "enter":
		return m.submitForm()
	case "ctrl+u":
		f.fields[f.at].input.SetValue("")
	default:
		f.fields[f.at].input, _ = f.fields[f.at].input.Update(msg)
	}
	return nil
}

// submitForm reads the form: a field changed is set (typed by the schema)
// or, cleared, removed; a value that does not parse keeps the form open on
// its field. Nothing changed writes nothing.
func (m *browseModel) submitForm() tea.Cmd {
	m.clearMessages()
	f := m.form
	expect, set := ops.Expect{}, map[string]any{}
	var remove []string
	for i, fd := range f.fields {
		expect[fd.attr.Name] = fd.old
		text := fd.input.Value()
		switch {
		case !f.adding && text == fd.oldText:
		case text == "":
			if fd.old != nil {
				remove = append(remove, fd.attr.Name)
			}
		default:
			v, err := schema.ParseValue(fd.attr.Kind, text)
			if err != nil {
				m.status = fmt.Sprintf("%s is %s: %v", fd.attr.Name, fd.attr.Kind.Noun(), err)
				f.move(i)
				return nil
			}
			set[fd.attr.Name] = v
		}
	}
	m.form = nil
	if len(set)+len(remove) == 0 && !f.adding {
		m.note = "nothing changed; nothing written"
		return nil
	}
	return f.save(m, expect, set, remove)
}

// formView draws the form: its title, then each field with its type.
func (m *browseModel) formView(line func(string)) {
	f := m.form
	line(bTitle.Render(f.title) + bFaint.Render("  tab moves · ctrl+u clears · enter saves · esc cancels"))
	for i, fd := range f.fields {
		marker := "  "
		if i == f.at {
			marker = "> "
		}
		label := fmt.Sprintf("%-*s", f.labelWidth(), fd.attr.Name+" ("+string(fd.attr.Kind)+")")
		line(marker + label + "  " + fd.input.View())
	}
}

func (f *browseForm) labelWidth() int {
	w := 0
	for _, fd := range f.fields {
		w = max(w, len(fd.attr.Name)+len(fd.attr.Kind)+3)
	}
	return w
}

// changesText says what a write changed, from the values shown (expect)
// to the item as written: grade C (was D).
func changesText(expect ops.Expect, after ops.Item) string {
	var parts []string
	for _, name := range sortedNames(expect) {
		was, now := expect[name], after[name]
		if shownAV(was) == shownAV(now) {
			continue
		}
		parts = append(parts, fmt.Sprintf("%s %s (was %s)", name, shownAV(now), shownAV(was)))
	}
	return strings.Join(parts, ", ")
}

// shownAV is an attribute value as the form shows it; "unset" for none.
func shownAV(av types.AttributeValue) string {
	if av == nil {
		return "unset"
	}
	v, err := ops.PlainValue(av)
	if err != nil {
		return "?"
	}
	return cell(v)
}
