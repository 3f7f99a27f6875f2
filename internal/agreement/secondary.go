package agreement

// Secondary placeholder replaced below.
type Secondary struct {
	Tags     []TagAgreement `json:"tags"`
	SetAlpha []SetAlpha     `json:"set_alpha"`
}

type TagAgreement struct {
	Tag        string `json:"tag"`
	CohenKappa *Value `json:"cohen_kappa,omitempty"`
	Alpha      Value  `json:"alpha"`
}

type SetAlpha struct {
	Distance string `json:"distance"`
	Alpha    Value  `json:"alpha"`
}

func secondary(ratings []Rating) *Secondary { return nil }
