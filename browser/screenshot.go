package browser

import (
	"encoding/binary"
	"fmt"
)

// Screenshot is a PNG image. Its preview names the format and size ("PNG
// 1280×800"), never the bytes. It is media (run.Media): a screenshot a run
// takes is part of its output, an image/png part in ACP, with no
// configuration by the host.
type Screenshot []byte

// MediaType returns "image/png". It implements run.Media.
func (Screenshot) MediaType() string { return "image/png" }

var pngSignature = []byte("\x89PNG\r\n\x1a\n")

// Size returns the image's width and height in pixels, read from the PNG
// header; ok is false when s is not a PNG.
func (s Screenshot) Size() (width, height int, ok bool) {
	// The signature (8 bytes), then the IHDR chunk: length (4), type (4),
	// width (4), height (4).
	if len(s) < 24 || string(s[:8]) != string(pngSignature) || string(s[12:16]) != "IHDR" {
		return 0, 0, false
	}
	return int(binary.BigEndian.Uint32(s[16:20])), int(binary.BigEndian.Uint32(s[20:24])), true
}

// Preview describes the image: "PNG 1280×800". It implements
// variable.Previewer.
func (s Screenshot) Preview(limit int) string {
	w, h, ok := s.Size()
	if !ok {
		return cut(fmt.Sprintf("not a PNG (%d bytes)", len(s)), limit)
	}
	return cut(fmt.Sprintf("PNG %d×%d", w, h), limit)
}

// String is Preview without a limit.
func (s Screenshot) String() string { return s.Preview(0) }
