package answer

import "testing"

func TestOtherAttribute(t *testing.T) {
	akin := func(a, b string) bool { return a == "telephone" && b == "landline" }
	for _, c := range []struct {
		question, text string
		other          bool
	}{
		{"What's my waist size?", "My shoe size is 10.5.", true},
		{"What is my shoe size?", "My shoe size is 10.5.", false},
		{"What size shoes do I wear?", "My shoe size is 10.5.", false},
		{"What's my favorite book?", "My favorite season is autumn.", true},
		{"What is my favourite season?", "My favorite season is autumn.", false},
		{"What's my favorite thing to do?", "My favorite hobby is climbing.", false},
		{"What's my home address?", "My email address is ana@example.com.", true},
		{"What is my address?", "My email address is ana@example.com.", false},
		{"What's my e-mail address?", "My email address is ana@example.com.", false},
		{"What's the Wi-Fi password?", "The wifi password is on the router.", false},
		{"What's my GitLab username?", "My GitHub username is arivera-dev.", true},
		{"What is my phone number?", "My telephone number is 555 0100.", false},
		{"What is my telephone number?", "My landline number is 555 0100.", false},
		{"What is my phone number?", "My passport number is X1234567.", true},
		{"What's my size?", "My shoe size is 10.5.", false},
		{"What's my current number?", "My new phone number is 555-0199.", false},
		{"What is my passport number?", "I keep my passport in the blue folder.", false},
		{"What is my email address?", "Our new address is 12 Rua Augusta, Lisbon.", true},
		{"What's my home address?", "I changed my personal email to alex.rivera.home@fastmail.example.", true},
		{"What's my email?", "My email address is ana@example.com.", false},
		{"What's my email?", "Our new address is 12 Rua Augusta, Lisbon.", true},
		{"What is my email address?", "I changed my personal email to alex@fastmail.example.", false},
		{"What's my home address?", "Our new address is 12 Rua Augusta, Lisbon.", false},
		{"Where do I live?", "My email address is ana@example.com.", true},
		{"Where do I live?", "My work address is 1 Infinite Loop.", true},
		{"Where does my mom live?", "My mom's address is 5 Oak Street.", false},
		{"What is the Wi-Fi password?", "The home Wi-Fi network is called Sunflower5G.", true},
		{"What's the name of our wifi?", "The home Wi-Fi network is called Sunflower5G.", false},
		{"What's my GitHub password?", "My GitHub username is arivera-dev.", true},
		{"What's my Netflix password?", "My Netflix account is shared with my sister Carla.", true},
		{"What's my phone's PIN?", "My phone number is 555-0199.", true},
		{"What is my phone number?", "My new phone is an iPhone 16.", false},
		{"What is the Wi-Fi password?", "I called the landlord about the Wi-Fi.", false},
		{"What's my login?", "My email is ana@example.com.", false},
		{"What is my dog called?", "Our dog is a golden retriever named Biscuit.", false},
		{"What is my dog's name?", "My cat's name is Miso.", true},
		{"What is my name?", "My cat's name is Miso.", true},
		{"What is my name?", "My name is Ana Lima.", false},
		{"What is my pet's name?", "My cat's name is Miso.", false},
		{"What's the name of my dog?", "My dog's name is Rex.", false},
		{"What's the name of my dog?", "My cat's name is Miso.", true},
		{"What is my mom's name?", "My mother's name is Rosa.", false},
		{"What is my sister's name?", "My sister is a dentist.", false},
		{"What is my last name?", "My cat's name is Miso.", true},
		{"What is my last name?", "My full name is Ana Lima.", false},
	} {
		if got := Ask(c.question).OtherAttribute(c.text, akin); got != c.other {
			t.Errorf("%q of %q: OtherAttribute %v, want %v", c.question, c.text, got, c.other)
		}
	}
}

func TestOtherAttributeReadsOnlyAKindSaidBeforeTheHead(t *testing.T) {
	if Ask("What shoe size does my son wear?").OtherAttribute("My son wears size 4 shoes.", nil) {
		t.Error(`"wears" before "size" is no kind of size`)
	}
	if !Ask("What is grandma's shoe size?").OtherAttribute("Grandma's glove size is 7.", nil) {
		t.Error(`"Grandma's glove size" is a glove size`)
	}
}
