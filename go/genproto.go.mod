module github.com/groundwire/groundwire/genproto

go 1.19
