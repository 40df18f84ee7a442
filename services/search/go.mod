module github.com/openhuman-go/openhuman-go/services/search

go 1.26.0

require github.com/openhuman-go/openhuman-go/pkg v0.0.0

replace github.com/openhuman-go/openhuman-go/pkg => ../../pkg
