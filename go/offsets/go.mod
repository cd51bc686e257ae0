module github.com/groundwire/groundwire/go/offsets

go 1.19
