package memory_test

import (
	"testing"
)

// A name asked for is a person's or a pet's, never a month or a day: the
// note naming the dentist answers, not the one that names March; a note
// of my late dad names no one.
func TestANameIsNoMonth(t *testing.T) {
	svc := learned(t, "Dentist appointment on March 14 at 3pm with Dr. Lee.",
		"The dentist's office phoned: my appointment got pushed to March 21, same time.", "My dad passed away in 2018.", "I like tea.")
	recallAnswers(t, svc, false, map[string]string{
		"What's my dentist's name?": "Dr. Lee",
		"Who is my dentist?":        "Dr. Lee",
		"What is my dad's name?":    "",
	})
}
