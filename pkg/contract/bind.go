package contract

import (
	"encoding"
	"encoding/json"
	"fmt"
	"reflect"
	"strconv"
	"strings"
	"sync"
)

// Bind fills dst, a pointer to a params struct, from arguments that passed
// the schema, matching keys to fields by their json tags. It replaces an
// encode and a second decode of the same arguments: a service decodes a
// request's bytes once, checks the decoded value, and binds it.
//
// A key the struct has no field for is an error, never dropped. The
// schema is generated from the struct (inputFor), so such a key means a
// caller bound arguments to a type other than the one its schema came from.
func Bind(args map[string]any, dst any) error {
	v := reflect.ValueOf(dst)
	if v.Kind() != reflect.Pointer || v.IsNil() {
		return Errorf(CodeInternal, "Bind needs a non-nil pointer, got %T", dst)
	}
	return bindValue("", v.Elem(), args)
}

var textUnmarshaler = reflect.TypeFor[encoding.TextUnmarshaler]()

func bindValue(path string, v reflect.Value, x any) error {
	if x == nil {
		v.SetZero()
		return nil
	}
	if v.Kind() == reflect.Pointer {
		if v.IsNil() {
			v.Set(reflect.New(v.Type().Elem()))
		}
		return bindValue(path, v.Elem(), x)
	}
	if s, ok := x.(string); ok && reflect.PointerTo(v.Type()).Implements(textUnmarshaler) {
		if err := v.Addr().Interface().(encoding.TextUnmarshaler).UnmarshalText([]byte(s)); err != nil {
			return invalid(path, "argument `%s`: %v", path, err)
		}
		return nil
	}
	if ok, err := bindKind(path, v, x); ok || err != nil {
		return err
	}
	return wrongType(path, "a "+v.Type().String(), x)
}

// bindKind sets v, by its kind, from x; false when x is not of the JSON
// type that kind is bound from.
func bindKind(path string, v reflect.Value, x any) (bool, error) {
	switch v.Kind() {
	case reflect.Interface:
		v.Set(reflect.ValueOf(x))
		return true, nil
	case reflect.String:
		s, ok := x.(string)
		if ok {
			v.SetString(s)
		}
		return ok, nil
	case reflect.Bool:
		b, ok := x.(bool)
		if ok {
			v.SetBool(b)
		}
		return ok, nil
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		n, ok := x.(json.Number)
		if !ok {
			return false, nil
		}
		return true, bindInt(path, v, n)
	case reflect.Float32, reflect.Float64:
		n, ok := x.(json.Number)
		if !ok {
			return false, nil
		}
		f, err := n.Float64()
		if err != nil {
			return true, invalid(path, "argument `%s` must be a number, got %s", path, clip(n.String()))
		}
		v.SetFloat(f)
		return true, nil
	case reflect.Slice:
		arr, ok := x.([]any)
		if !ok {
			return false, nil
		}
		return true, bindSlice(path, v, arr)
	case reflect.Map:
		m, ok := x.(map[string]any)
		if !ok || !reflect.TypeOf(m).ConvertibleTo(v.Type()) {
			return false, nil
		}
		v.Set(reflect.ValueOf(m).Convert(v.Type()))
		return true, nil
	case reflect.Struct:
		m, ok := x.(map[string]any)
		if !ok {
			return false, nil
		}
		return true, bindStruct(path, v, m)
	}
	return false, nil
}

// bindInt sets v, an integer, from n: a whole number in its range.
func bindInt(path string, v reflect.Value, n json.Number) error {
	i, err := n.Int64()
	if err != nil {
		// The schema lets 10.0 through as a whole number.
		f, ferr := strconv.ParseFloat(n.String(), 64)
		if ferr != nil || f != float64(int64(f)) {
			return invalid(path, "argument `%s` must be a whole number, got %s", path, clip(n.String()))
		}
		i = int64(f)
	}
	if v.OverflowInt(i) {
		return invalid(path, "argument `%s` is out of range: %s", path, clip(n.String()))
	}
	v.SetInt(i)
	return nil
}

// bindSlice sets v, a slice, to arr's items, each bound to its type.
func bindSlice(path string, v reflect.Value, arr []any) error {
	s := reflect.MakeSlice(v.Type(), len(arr), len(arr))
	for i, item := range arr {
		if err := bindValue(fmt.Sprintf("%s[%d]", path, i), s.Index(i), item); err != nil {
			return err
		}
	}
	v.Set(s)
	return nil
}

// bindStruct sets v's fields from m's keys by their JSON names; a key
// without a field is an error.
func bindStruct(path string, v reflect.Value, m map[string]any) error {
	fields := fieldsOf(v.Type())
	for key, val := range m {
		f, ok := fields[key]
		if !ok {
			return invalid(join(path, key), "unexpected argument `%s`: this method takes no such field", join(path, key))
		}
		if err := bindValue(join(path, key), v.FieldByIndex(f.index), val); err != nil {
			return err
		}
	}
	return nil
}

// field is a struct field as JSON names it.
type field struct {
	index []int
	typ   reflect.Type
}

var fieldCache sync.Map // reflect.Type -> map[string]field

// fieldsOf maps a struct's JSON keys to its fields, embedded structs'
// fields included, as encoding/json would.
func fieldsOf(t reflect.Type) map[string]field {
	if f, ok := fieldCache.Load(t); ok {
		return f.(map[string]field)
	}
	fields := map[string]field{}
	var walk func(t reflect.Type, index []int)
	walk = func(t reflect.Type, index []int) {
		for i := range t.NumField() {
			sf := t.Field(i)
			idx := append(append([]int(nil), index...), i)
			name, _, _ := strings.Cut(sf.Tag.Get("json"), ",")
			if name == "-" || (!sf.IsExported() && !sf.Anonymous) {
				continue
			}
			if sf.Anonymous && name == "" && sf.Type.Kind() == reflect.Struct {
				walk(sf.Type, idx)
				continue
			}
			if name == "" {
				name = sf.Name
			}
			fields[name] = field{index: idx, typ: sf.Type}
		}
	}
	walk(t, nil)
	fieldCache.Store(t, fields)
	return fields
}
