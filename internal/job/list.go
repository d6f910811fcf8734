package job

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// List is a comma-separated list flag (--stores 100,1000, --queries
// count,knn, --pool 0,10%): a flag.Value whose Set parses each item with
// Parse, and refuses an empty item or an item listed twice with one
// message for every list (ParseList).
type List[T comparable] struct {
	Parse func(item string) (T, error)
	Items []T
	text  string // the list as given
}

// NewList returns a list flag of items parsed by parse, holding def.
// def is the code's, so a bad one panics.
func NewList[T comparable](parse func(string) (T, error), def string) *List[T] {
	l := &List[T]{Parse: parse}
	if err := l.Set(def); err != nil {
		panic(fmt.Sprintf("list default %q: %v", def, err))
	}
	return l
}

// String is the list as given (the flag package prints it as the
// default).
func (l *List[T]) String() string {
	if l == nil {
		return ""
	}
	return l.text
}

// Set parses s, replacing the list.
func (l *List[T]) Set(s string) error {
	items, err := ParseList(s, l.Parse)
	if err != nil {
		return err
	}
	l.Items, l.text = items, s
	return nil
}

// ParseList parses s, comma-separated items each read by parse (spaces
// around an item are dropped): no item empty, none listed twice.
func ParseList[T comparable](s string, parse func(string) (T, error)) ([]T, error) {
	var out []T
	for _, item := range strings.Split(s, ",") {
		item = strings.TrimSpace(item)
		if item == "" {
			return nil, fmt.Errorf("%q has an empty item: separate the items with single commas", s)
		}
		x, err := parse(item)
		if err != nil {
			return nil, err
		}
		if slices.Contains(out, x) {
			return nil, fmt.Errorf("%s is listed twice", item)
		}
		out = append(out, x)
	}
	return out, nil
}

// ParseCount reads a count of a list of counts (--stores, --hold): a
// whole number, 0 or more.
func ParseCount(s string) (int, error) {
	n, err := strconv.Atoi(s)
	if err != nil || n < 0 {
		return 0, fmt.Errorf("%q: give a number or a comma-separated list of numbers, e.g. 100,1000", s)
	}
	return n, nil
}

// ParseName reads an item of a list of names (ab's --figures, advise's
// --part, run's --cache) as given: the command that takes the list checks
// the names themselves.
func ParseName(s string) (string, error) { return s, nil }
