package engine

import (
	"reflect"
	"testing"

	"pgregory.net/rapid"
)

// TestPropSetToolMessageOverwritesEveryField: setToolMessage makes its
// slot exactly the tool message it is given, whatever the slot held
// before: it writes the fields one by one (see setToolMessage), so every
// field of Message must be among them. The slot starts with every field
// set, found by reflection, so a field added to Message that
// setToolMessage leaves alone fails it too. (Leaving out the ID's reset
// fails it.)
func TestPropSetToolMessageOverwritesEveryField(t *testing.T) {
	rapid.Check(t, propSetToolMessageOverwritesEveryField)
}

func FuzzSetToolMessageOverwritesEveryField(f *testing.F) {
	f.Fuzz(rapid.MakeFuzz(propSetToolMessageOverwritesEveryField))
}

func propSetToolMessageOverwritesEveryField(t *rapid.T) {
	var slot Message
	v := reflect.ValueOf(&slot).Elem()
	for i := range v.NumField() {
		if rapid.Bool().Draw(t, v.Type().Field(i).Name) {
			fillNonZero(t, v.Field(i))
		}
	}
	content := Text(rapid.String().Draw(t, "content"))
	if rapid.Bool().Draw(t, "blocks") {
		content = Blocks(NewObject("type", "text", "text", rapid.String().Draw(t, "text")))
	}
	name := rapid.String().Draw(t, "name")
	callID := rapid.String().Draw(t, "callID")
	status := rapid.SampledFrom([]string{StatusSuccess, StatusError}).Draw(t, "status")
	var artifact any
	if rapid.Bool().Draw(t, "artifact") {
		artifact = rapid.String().Draw(t, "artifactValue")
	}
	setToolMessage(&slot, content, name, callID, status, artifact)
	want := Message{Type: TypeTool, Content: content, Name: name, ToolCallID: callID, Status: status, Artifact: artifact}
	if !reflect.DeepEqual(slot, want) {
		t.Fatalf("setToolMessage left\n%#v\nwant\n%#v", slot, want)
	}
}

// fillNonZero sets v, a field of Message, to a value that is not its zero
// value.
func fillNonZero(t *rapid.T, v reflect.Value) {
	switch v.Kind() {
	case reflect.String:
		v.SetString("x" + rapid.String().Draw(t, "s"))
	case reflect.Slice:
		v.Set(reflect.MakeSlice(v.Type(), 1, 1))
	case reflect.Pointer:
		v.Set(reflect.New(v.Type().Elem()))
	case reflect.Interface:
		v.Set(reflect.ValueOf("left over"))
	case reflect.Struct:
		// Content: a text that is not the zero Content
		v.Set(reflect.ValueOf(Text("left over")))
	default:
		t.Fatalf("Message has a field of kind %s the property cannot fill", v.Kind())
	}
}
