package gateway

import "github.com/openhuman-go/openhuman-go/pkg/bus"

var _ caller = (*bus.Client)(nil)
