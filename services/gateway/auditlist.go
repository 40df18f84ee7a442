package gateway

import "github.com/openhuman-go/openhuman-go/services/gateway/auditlist"

// AuditList is what openhuman.audit_list answers (auditlist.Result).
type AuditList = auditlist.Result
