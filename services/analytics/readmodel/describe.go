package readmodel

import (
	"fmt"
	"math"
	"strings"
	"time"
)

// Describe composes an activity's description from its kind, its subject and
// the agent's name as known at read time (docs/analytics.md lists them):
//
//	agent.created         Created agent Math Tutor
//	agent.updated         Updated the instructions and tags of Math Tutor
//	agent.status_changed  Math Tutor is now inactive
//	agent.published       Published Math Tutor on the marketplace
//	agent.unpublished     Took Math Tutor off the marketplace
//	subscriber.activated  Erin E subscribed to Math Tutor
//	document.added        Document "Syllabus" added to Math Tutor
//	document.updated      Document "Syllabus" updated on Math Tutor
//	document.removed      Document "Syllabus" removed from Math Tutor
//	document.synced       Document "Syllabus" synced from Google Docs to Math Tutor
//	interaction.recorded  Math Tutor answered a question
func Describe(kind, subject, agent string) string {
	if agent == "" {
		agent = UnknownAgentName
	}
	switch kind {
	case KindAgentCreated:
		return "Created agent " + agent
	case KindAgentUpdated:
		if subject == "" {
			return "Updated the configuration of " + agent
		}
		return "Updated the " + subject + " of " + agent
	case KindAgentStatusChanged:
		return agent + " is now " + subject
	case KindAgentPublished:
		return "Published " + agent + " on the marketplace"
	case KindAgentUnpublished:
		return "Took " + agent + " off the marketplace"
	case KindAgentDeleted:
		return "Deleted agent " + agent
	case KindSubscriberActivated:
		if subject == "" {
			subject = "A new subscriber"
		}
		return subject + " subscribed to " + agent
	case KindDocumentAdded:
		return fmt.Sprintf("Document %q added to %s", subject, agent)
	case KindDocumentUpdated:
		return fmt.Sprintf("Document %q updated on %s", subject, agent)
	case KindDocumentRemoved:
		return fmt.Sprintf("Document %q removed from %s", subject, agent)
	case KindDocumentSynced:
		return fmt.Sprintf("Document %q synced from Google Docs to %s", subject, agent)
	case KindInteraction:
		return agent + " answered a question"
	default:
		return "Activity on " + agent
	}
}

// fieldLabels are the words used for AgentUpdated.changed_fields.
var fieldLabels = map[string]string{
	"description":  "description",
	"instructions": "instructions",
	"tags":         "tags",
	"isPublic":     "visibility",
	"is_public":    "visibility",
	"name":         "name",
	"iconName":     "icon",
	"iconColor":    "colour",
	"category":     "category",
}

// ChangedFieldsPhrase turns ["instructions","tags","isPublic"] into
// "instructions, tags and visibility".
func ChangedFieldsPhrase(fields []string) string {
	var words []string
	seen := map[string]bool{}
	for _, f := range fields {
		w, ok := fieldLabels[f]
		if !ok {
			w = strings.TrimSpace(f)
		}
		if w == "" || seen[w] {
			continue
		}
		seen[w] = true
		words = append(words, w)
	}
	switch len(words) {
	case 0:
		return ""
	case 1:
		return words[0]
	default:
		return strings.Join(words[:len(words)-1], ", ") + " and " + words[len(words)-1]
	}
}

// MonthStart is the first instant of t's calendar month in UTC.
func MonthStart(t time.Time) time.Time {
	t = t.UTC()
	return time.Date(t.Year(), t.Month(), 1, 0, 0, 0, 0, time.UTC)
}

// Growth is the month-over-month growth of a running total, in percent,
// rounded half away from zero to one decimal:
//
//	growth = (current − previous) / previous × 100
//
// where previous is the total at the end of last month (UTC). A zero base
// gives 0 when current is 0 too, and +100 when current is positive (−100 if
// it were negative).
func Growth(current, previous int64) float64 {
	if previous == 0 {
		switch {
		case current > 0:
			return 100
		case current < 0:
			return -100
		default:
			return 0
		}
	}
	g := float64(current-previous) / math.Abs(float64(previous)) * 100
	r := math.Round(g*10) / 10
	if r == 0 {
		return 0 // no negative zero
	}
	return r
}

// CentsFromMicros converts micro-dollars to whole US cents (truncating toward zero).
func CentsFromMicros(micros int64) int64 { return micros / 10_000 }
