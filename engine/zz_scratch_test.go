package engine

import (
	"encoding/json"
	"fmt"
	"math"
	"testing"
)

func TestZZScratch(t *testing.T) {
	fmt.Println(pyFloatRepr(math.Copysign(0, -1)), pyFloatRepr(math.NaN()), pyFloatRepr(math.Inf(-1)), pyFloatRepr(-1.5e-10), pyFloatRepr(-123.0))
	j, _ := PyJSON("\u2028\u2029\x7f\x00")
	fmt.Printf("%+q\n", j)
	fmt.Println(PyRepr(math.Copysign(0, -1)), PyRepr(1.0), PyRepr(int64(3)), PyRepr(map[string]any{"b": 1, "a": 2.5}))
	o := NewObject("a", 1, "b", 2, "c", 3)
	o.Delete("b")
	o.Set("b", 4)
	o.Set("a", 5)
	fmt.Println(o.Keys())
	c := o.Clone()
	c.Set("z", 1)
	fmt.Println(o.Keys(), c.Keys())
	var z Object
	z.Set("x", 1)
	fmt.Println(z.Keys())
	var np *Object
	fmt.Println(np.Len(), np.Keys(), np.Has("x"))
	np.Delete("x")
	fmt.Println(ValueEqual(json.Number("1"), json.Number("1.0")), ValueEqual(json.Number("1"), true), ValueEqual(NewObject("a", 1, "b", 2), NewObject("b", 2, "a", 1)))
	fmt.Println(ValueEqual(json.Number("12345678901234567890"), json.Number("12345678901234567891")))
}
