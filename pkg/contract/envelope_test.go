package contract

import (
	"bytes"
	"testing"
)

func TestReplyEnvelope(t *testing.T) {
	for _, tc := range []struct {
		data       string
		result     string
		errCode    Code
		decodeFail bool
	}{
		{data: string(EncodeResult([]byte(`{"hits":[1,2]}`))), result: `{"hits":[1,2]}`},
		{data: `{"result":null}`, result: `null`},
		{data: `{"result": {"a":1} }`, result: `{"a":1}`},
		{data: `{"error":{"code":"NOT_FOUND","message":"gone"}}`, errCode: CodeNotFound},
		{data: `{"result":{"a":1},"error":{"code":"ENGINE","message":"x"}}`, errCode: CodeEngine, result: `{"a":1}`},
		{data: `{}`, decodeFail: true},
		{data: `not json`, decodeFail: true},
		{data: `{"result":{"a":}}`, decodeFail: true}, // the envelope's shape around a broken result
	} {
		r, err := DecodeReply([]byte(tc.data))
		if tc.decodeFail {
			if err == nil {
				t.Errorf("%s: decoded", tc.data)
			}
			continue
		}
		if err != nil {
			t.Errorf("%s: %v", tc.data, err)
			continue
		}
		if string(bytes.TrimSpace(r.Result)) != tc.result {
			t.Errorf("%s: result %s, want %s", tc.data, r.Result, tc.result)
		}
		if (r.Error == nil) != (tc.errCode == "") || (r.Error != nil && r.Error.Code != tc.errCode) {
			t.Errorf("%s: error %v", tc.data, r.Error)
		}
	}
}
