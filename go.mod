module manydb

go 1.26.8

require (
	github.com/mattn/go-sqlite3 v1.14.53
	github.com/schollz/progressbar/v3 v3.19.1
	github.com/tursodatabase/go-libsql v0.0.0-20251219133454-43644db490ff
	golang.org/x/term v0.48.0
)

require (
	github.com/antlr4-go/antlr/v4 v4.13.0 // indirect
	github.com/ebitengine/purego v0.10.0-alpha.2 // indirect
	github.com/libsql/sqlite-antlr4-parser v0.0.0-20240327125255-dbf53b6cbf06 // indirect
	github.com/mitchellh/colorstring v0.0.0-20190213212951-d06e56a500db // indirect
	github.com/rivo/uniseg v0.4.7 // indirect
	github.com/tursodatabase/turso-go v0.2.2 // indirect
	golang.org/x/exp v0.0.0-20230515195305-f3d0a9c9a5cc // indirect
	golang.org/x/sys v0.50.0 // indirect
)
