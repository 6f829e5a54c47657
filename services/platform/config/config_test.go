package config

import (
	"errors"
	"reflect"
	"strings"
	"testing"
	"time"
)

func TestDefaultsWhenUnset(t *testing.T) {
	t.Setenv("CFG_TEST_S", "")
	if got := String("CFG_TEST_S", "def"); got != "def" {
		t.Fatalf("String = %q", got)
	}
	if got, err := Int("CFG_TEST_UNSET_I", 7); err != nil || got != 7 {
		t.Fatalf("Int = %d, %v", got, err)
	}
	if got, err := Duration("CFG_TEST_UNSET_D", time.Second); err != nil || got != time.Second {
		t.Fatalf("Duration = %v, %v", got, err)
	}
	if got, err := Float("CFG_TEST_UNSET_F", 0.25); err != nil || got != 0.25 {
		t.Fatalf("Float = %v, %v", got, err)
	}
	if got, err := Bool("CFG_TEST_UNSET_B", true); err != nil || !got {
		t.Fatalf("Bool = %v, %v", got, err)
	}
	if got := List("CFG_TEST_UNSET_L", []string{"a"}); !reflect.DeepEqual(got, []string{"a"}) {
		t.Fatalf("List = %v", got)
	}
}

func TestParsesValues(t *testing.T) {
	t.Setenv("CFG_S", " hello ")
	t.Setenv("CFG_I", "42")
	t.Setenv("CFG_D", "1m30s")
	t.Setenv("CFG_B", "FALSE")
	t.Setenv("CFG_F", " 0.35 ")
	t.Setenv("CFG_L", "a:1, b:2,,  ,c:3")
	if got := String("CFG_S", ""); got != "hello" {
		t.Fatalf("String = %q", got)
	}
	if got, _ := Int("CFG_I", 0); got != 42 {
		t.Fatalf("Int = %d", got)
	}
	if got, _ := Duration("CFG_D", 0); got != 90*time.Second {
		t.Fatalf("Duration = %v", got)
	}
	if got, _ := Bool("CFG_B", true); got {
		t.Fatalf("Bool = %v", got)
	}
	if got, err := Float("CFG_F", 0); err != nil || got != 0.35 {
		t.Fatalf("Float = %v, %v", got, err)
	}
	if got := List("CFG_L", nil); !reflect.DeepEqual(got, []string{"a:1", "b:2", "c:3"}) {
		t.Fatalf("List = %v", got)
	}
}

func TestBadValuesGiveClearErrors(t *testing.T) {
	t.Setenv("CFG_I", "forty")
	t.Setenv("CFG_D", "10")
	t.Setenv("CFG_B", "maybe")
	t.Setenv("CFG_F", "NaN")
	var l Loader
	if got := l.Int("CFG_I", 3); got != 3 {
		t.Fatalf("Int fallback = %d", got)
	}
	l.Duration("CFG_D", time.Second)
	l.Bool("CFG_B", false)
	if got := l.Float("CFG_F", 0.5); got != 0.5 {
		t.Fatalf("Float fallback = %v", got)
	}
	err := l.Err()
	if err == nil {
		t.Fatal("expected error")
	}
	for _, want := range []string{`CFG_I="forty" is not a valid integer`, `CFG_D="10" is not a valid duration`, `CFG_B="maybe" is not a valid boolean`, `CFG_F="NaN" is not a valid number`} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not mention %q", err, want)
		}
	}
	var ce *Error
	if !errors.As(err, &ce) {
		t.Fatal("errors.As(*Error) failed")
	}
}
