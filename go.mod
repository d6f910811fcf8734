module manydb

go 1.26.8

require (
	github.com/google/flatbuffers v23.5.26+incompatible
	github.com/mattn/go-sqlite3 v1.14.53
	github.com/objectbox/objectbox-go v1.9.0
	github.com/schollz/progressbar/v3 v3.19.1
	golang.org/x/term v0.48.0
)

require (
	github.com/mitchellh/colorstring v0.0.0-20190213212951-d06e56a500db // indirect
	github.com/objectbox/objectbox-generator/v4 v4.0.0 // indirect
	github.com/rivo/uniseg v0.4.7 // indirect
	golang.org/x/sys v0.50.0 // indirect
)

tool github.com/objectbox/objectbox-go/cmd/objectbox-gogen
