package bus

import (
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/micro"
	"github.com/nats-io/nuid"

	"github.com/openhuman-go/openhuman-go/pkg/contract"
)

// A service answers $SRV.PING, $SRV.INFO and $SRV.STATS itself, in micro's
// protocol and with micro's types (so `nats micro ls` and discovery see
// it as a micro service), rather than through micro.AddService: micro
// answers those on whatever reply subject a request names, and under
// NATS's allow_responses a service may publish to any reply subject it
// is handed, so a caller naming memory's stream as the reply would have
// memory or search write into it (or, where the JetStream API takes
// unknown fields, a ping sent to $JS.API.STREAM.PURGE.<stream> purge
// it). Here, as for every endpoint, a request whose reply subject is not
// an inbox is dropped unanswered.

// registration is what a service subscribed to.
type registration struct {
	id        string
	started   time.Time
	endpoints []*nats.Subscription
	verbs     []*nats.Subscription
}

// register subscribes to each endpoint in the queue group and to the
// $SRV subjects of the service.
func (s *Service) register() error {
	s.reg = registration{id: nuid.Next(), started: time.Now().UTC()}
	prefix := contract.SubjectPrefix + "." + s.cfg.Name + "."
	for i := range s.cfg.Endpoints {
		ep := &s.cfg.Endpoints[i]
		st := s.stats[ep.def.Method]
		sub, err := s.nc.QueueSubscribe(prefix+ep.def.Method, contract.QueueGroup, func(m *nats.Msg) { s.dispatch(ep, st, m) })
		if err != nil {
			s.unregister()
			return fmt.Errorf("registering %s.%s: %w", s.cfg.Name, ep.def.Method, err)
		}
		s.reg.endpoints = append(s.reg.endpoints, sub)
	}
	for verb, answer := range map[micro.Verb]func() any{
		micro.PingVerb:  func() any { return micro.Ping{ServiceIdentity: s.identity(), Type: micro.PingResponseType} },
		micro.InfoVerb:  func() any { return s.Info() },
		micro.StatsVerb: func() any { return s.microStats() },
	} {
		for _, subject := range []struct{ name, id string }{{"", ""}, {s.cfg.Name, ""}, {s.cfg.Name, s.reg.id}} {
			subj, err := micro.ControlSubject(verb, subject.name, subject.id)
			if err == nil {
				var sub *nats.Subscription
				sub, err = s.nc.Subscribe(subj, func(m *nats.Msg) { s.answerVerb(verb, m, answer) })
				s.reg.verbs = append(s.reg.verbs, sub)
			}
			if err != nil {
				s.unregister()
				return fmt.Errorf("registering %s: %w", s.cfg.Name, err)
			}
		}
	}
	return nil
}

// answerVerb answers a $SRV request on its inbox, and on nothing else.
func (s *Service) answerVerb(verb micro.Verb, m *nats.Msg, answer func() any) {
	if !strings.HasPrefix(m.Reply, replyPrefix) {
		if m.Reply != "" {
			s.refuseReply("$SRV."+verb.String(), m.Reply)
		}
		return
	}
	body, err := json.Marshal(answer())
	if err == nil {
		err = s.nc.Publish(m.Reply, body)
	}
	if err != nil {
		s.cfg.Logger.Error("answering "+verb.String(), "err", err)
	}
}

// unregister leaves the queue group (requests already taken are still
// handled), then stops answering $SRV.
func (s *Service) unregister() error {
	var first error
	for _, subs := range [][]*nats.Subscription{s.reg.endpoints, s.reg.verbs} {
		for _, sub := range subs {
			if err := sub.Drain(); err != nil && first == nil && err != nats.ErrConnectionClosed {
				first = err
			}
		}
	}
	return first
}

func (s *Service) identity() micro.ServiceIdentity {
	return micro.ServiceIdentity{Name: s.cfg.Name, ID: s.reg.id, Version: s.cfg.Version, Metadata: map[string]string{}}
}

// Info is the service's $SRV.INFO.
func (s *Service) Info() micro.Info {
	info := micro.Info{ServiceIdentity: s.identity(), Type: micro.InfoResponseType, Description: s.cfg.Description,
		Endpoints: make([]micro.EndpointInfo, 0, len(s.cfg.Endpoints))}
	for _, ep := range s.cfg.Endpoints {
		info.Endpoints = append(info.Endpoints, micro.EndpointInfo{Name: ep.def.Method, Subject: ep.def.Subject(),
			QueueGroup: contract.QueueGroup, Metadata: map[string]string{}})
	}
	return info
}

// microStats is the service's $SRV.STATS: each endpoint's figures, and
// the same as EndpointStats in its data, where they were before.
func (s *Service) microStats() micro.Stats {
	out := micro.Stats{ServiceIdentity: s.identity(), Type: micro.StatsResponseType, Started: s.reg.started,
		Endpoints: make([]*micro.EndpointStats, 0, len(s.cfg.Endpoints))}
	for _, ep := range s.cfg.Endpoints {
		st := s.stats[ep.def.Method].snapshot()
		data, _ := json.Marshal(st)
		out.Endpoints = append(out.Endpoints, &micro.EndpointStats{Name: ep.def.Method, Subject: ep.def.Subject(),
			QueueGroup: contract.QueueGroup, NumRequests: st.Answered, NumErrors: st.Errors, LastError: st.LastError,
			ProcessingTime: st.ProcessingTime, AverageProcessingTime: st.AverageProcessingTime, Data: data})
	}
	return out
}
