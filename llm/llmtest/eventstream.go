package llmtest

import (
	"encoding/binary"
	"hash/crc32"
	"strings"
)

// The AWS event stream encoding (application/vnd.amazon.eventstream), as
// AWS documents it for Bedrock's ConverseStream and Transcribe's streams:
// each message is a prelude (total length, headers length, CRC32 of those
// eight bytes), headers, a payload and the CRC32 of everything before it.

// frame encodes one event-stream message whose headers are all strings
// (value type 7), in the order given.
func frame(headers [][2]string, payload string) string {
	var hs []byte
	for _, h := range headers {
		hs = append(hs, byte(len(h[0])))
		hs = append(hs, h[0]...)
		hs = append(hs, 7)
		hs = binary.BigEndian.AppendUint16(hs, uint16(len(h[1])))
		hs = append(hs, h[1]...)
	}
	total := 12 + len(hs) + len(payload) + 4
	b := binary.BigEndian.AppendUint32(nil, uint32(total))
	b = binary.BigEndian.AppendUint32(b, uint32(len(hs)))
	b = binary.BigEndian.AppendUint32(b, crc32.ChecksumIEEE(b))
	b = append(b, hs...)
	b = append(b, payload...)
	b = binary.BigEndian.AppendUint32(b, crc32.ChecksumIEEE(b))
	return string(b)
}

// converseEvent is one ConverseStream event of the type with its JSON
// payload.
func converseEvent(eventType, payload string) string {
	return frame([][2]string{{":event-type", eventType}, {":content-type", "application/json"}, {":message-type", "event"}}, payload)
}

// converseException is an exception sent inside a ConverseStream.
func converseException(exceptionType, message string) string {
	return frame([][2]string{{":exception-type", exceptionType}, {":content-type", "application/json"}, {":message-type", "exception"}}, `{"message":"`+message+`"}`)
}

// EventStream returns a reply that streams Bedrock ConverseStream events
// as AWS event-stream messages, each given as its event type
// ("messageStart", "contentBlockDelta", "messageStop", "metadata") and JSON
// payload, for an adapter's own tests of a stream the suite does not play.
func EventStream(events ...[2]string) Reply {
	var b strings.Builder
	for _, e := range events {
		b.WriteString(converseEvent(e[0], e[1]))
	}
	return Reply{ContentType: "application/vnd.amazon.eventstream", Body: b.String()}
}
