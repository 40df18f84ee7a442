package textkeys

// british are words spelt one way in British English and another in
// American, each with its American form: "my favourite colour" and "my
// favorite color" are the same words, so both index and look for the
// American form's key. WordNet knows many of them as synonyms, but a
// synonym counts for less than the word (retrieval's expansion), and a
// spelling is the word itself. Pairs whose other spelling means something
// else too ("tyre" and "tire", "cheque" and "check") are left out.
var british = [][2]string{
	{"colour", "color"}, {"favourite", "favorite"}, {"favour", "favor"}, {"neighbour", "neighbor"},
	{"honour", "honor"}, {"humour", "humor"}, {"flavour", "flavor"}, {"labour", "labor"},
	{"behaviour", "behavior"}, {"harbour", "harbor"}, {"rumour", "rumor"}, {"armour", "armor"},
	{"odour", "odor"}, {"vapour", "vapor"}, {"parlour", "parlor"}, {"savoury", "savory"},
	{"centre", "center"}, {"theatre", "theater"}, {"metre", "meter"}, {"litre", "liter"},
	{"fibre", "fiber"}, {"kilometre", "kilometer"}, {"centimetre", "centimeter"}, {"millimetre", "millimeter"},
	{"organise", "organize"}, {"realise", "realize"}, {"recognise", "recognize"},
	{"apologise", "apologize"}, {"prioritise", "prioritize"}, {"customise", "customize"}, {"optimise", "optimize"},
	{"summarise", "summarize"}, {"emphasise", "emphasize"}, {"finalise", "finalize"}, {"minimise", "minimize"},
	{"maximise", "maximize"}, {"specialise", "specialize"}, {"personalise", "personalize"}, {"categorise", "categorize"},
	{"authorise", "authorize"}, {"criticise", "criticize"}, {"memorise", "memorize"}, {"standardise", "standardize"},
	{"utilise", "utilize"}, {"analyse", "analyze"}, {"paralyse", "paralyze"}, {"synchronise", "synchronize"},
	{"catalogue", "catalog"}, {"dialogue", "dialog"}, {"programme", "program"}, {"licence", "license"},
	{"defence", "defense"}, {"offence", "offense"}, {"grey", "gray"}, {"jewellery", "jewelry"},
	{"aluminium", "aluminum"}, {"aeroplane", "airplane"}, {"mould", "mold"}, {"moustache", "mustache"},
	{"pyjamas", "pajamas"}, {"sceptical", "skeptical"}, {"cosy", "cozy"}, {"doughnut", "donut"},
	{"judgement", "judgment"},
	{"manoeuvre", "maneuver"}, {"practise", "practice"}, {"paediatrician", "pediatrician"}, {"anaemia", "anemia"},
	{"oestrogen", "estrogen"}, {"haemoglobin", "hemoglobin"}, {"orthopaedic", "orthopedic"}, {"yoghurt", "yogurt"},
}

// spellings maps the key of a British spelling to its American form's key.
var spellings = func() map[string]string {
	m := make(map[string]string, len(british))
	for _, p := range british {
		b, a := porterStem([]byte(p[0])), porterStem([]byte(p[1]))
		if string(b) != string(a) {
			m[string(b)] = string(a)
		}
	}
	return m
}()
