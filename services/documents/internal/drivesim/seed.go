package drivesim

import "time"

// Stable ids of the seeded documents (44 characters starting with "1", like
// real Docs ids), referenced by docs/documents.md and the end-to-end suite.
const (
	SeedAlgebraSyllabusID = "1SimAlgebraOneSyllabus_000000000000000000001"
	SeedAuditChecklistID  = "1SimIso9001InternalAuditChecklist_0000000001"
	SeedProductFAQID      = "1SimNimbusNotesProductFaq_000000000000000001"
	SeedPricingNotesID    = "1SimConfidentialPricingNotes_000000000000001"
)

// seedTime is the seeded documents' creation and modification time: fixed so
// that a re-seeded store looks the same every time.
var seedTime = time.Date(2026, 1, 5, 9, 0, 0, 0, time.UTC)

// SeedFiles are the sample documents: three shared with anyone who has the
// link, and one shared with nobody, to try the "not shared" path.
func SeedFiles() []File {
	return []File{
		{ID: SeedAlgebraSyllabusID, Title: "Algebra I — Course Syllabus", Text: algebraSyllabus, AnyoneWithLink: true},
		{ID: SeedAuditChecklistID, Title: "ISO 9001:2015 Internal Audit Checklist", Text: auditChecklist, AnyoneWithLink: true},
		{ID: SeedProductFAQID, Title: "Nimbus Notes — Product FAQ", Text: productFAQ, AnyoneWithLink: true},
		{ID: SeedPricingNotesID, Title: "Confidential Pricing Notes", Text: pricingNotes},
	}
}

func (s *Server) seed() error {
	for _, f := range SeedFiles() {
		f.CreatedTime, f.ModifiedTime = seedTime, seedTime
		if _, err := s.CreateFile(f); err != nil {
			return err
		}
	}
	return nil
}

const algebraSyllabus = `Algebra I — Course Syllabus
Northfield High School · Mathematics Department · Fall Semester

Course Description
Algebra I introduces the language of variables, expressions and equations. Students learn to model real situations with linear equations and inequalities, to work with functions and their graphs, and to solve systems of equations. The course prepares students for Geometry and Algebra II and is required for graduation.

Instructor and Office Hours
Ms. Dana Whitfield, Room 214. Office hours: Tuesday and Thursday, 3:00–4:00 pm, or by appointment through the school portal. E-mail questions are answered within one school day.

Materials
A bound notebook used only for this class, a pencil, a scientific calculator (TI-30XS or similar; graphing calculators are allowed but not required), and access to the online textbook "Algebra I: Reasoning with Equations" (login details are handed out in week 1).

Weekly Schedule
Week 1: Expressions and the order of operations; evaluating expressions; translating words into algebra.
Week 2: Properties of real numbers; combining like terms; the distributive property.
Week 3: Solving one-step and two-step equations; checking solutions.
Week 4: Multi-step equations, variables on both sides, literal equations and formulas.
Week 5: Inequalities: solving, graphing on a number line, compound inequalities.
Week 6: Unit 1 test. Introduction to relations and functions; domain and range.
Week 7: Slope as a rate of change; slope from two points, tables and graphs.
Week 8: Slope-intercept form y = mx + b; point-slope form; standard form.
Week 9: Parallel and perpendicular lines; writing equations from a context.
Week 10: Scatter plots, lines of best fit, correlation versus causation.
Week 11: Systems of linear equations: graphing and substitution.
Week 12: Systems by elimination; applications (mixtures, tickets, break-even).
Week 13: Unit 2 test. Exponent rules; zero and negative exponents.
Week 14: Polynomials: adding, subtracting and multiplying; special products.
Week 15: Factoring: greatest common factor, trinomials, difference of squares.
Week 16: Quadratic functions and their graphs; solving by factoring.
Week 17: Review for the final exam.
Week 18: Final exam (cumulative).

Grading
Homework: 15%. Homework is assigned every class and checked for completion; two lowest scores are dropped.
Quizzes: 20%. One short quiz per week, usually on Friday.
Unit tests: 40%. Two unit tests; each may be retaken once within two weeks for up to 80% of the points missed.
Project: 10%. "Lines in the Wild": model a real data set with a linear function and present the result.
Final exam: 15%.
Letter grades: A 90–100, B 80–89, C 70–79, D 60–69, F below 60.

Late Work and Absences
Homework is accepted up to one week late for 70% credit. After an excused absence you have as many school days as you were absent to make up missed work. Quizzes missed with an excused absence are made up during office hours.

Academic Integrity
Working together on homework is encouraged, but every student hands in their own work and must be able to explain it. Copying answers from another student, a website or an AI tool on quizzes or tests results in a zero and a referral to the dean.

Getting Help
Peer tutoring is available in the library every Wednesday after school. Practice sets with worked solutions are posted on the class page each Friday.
`

const auditChecklist = `ISO 9001:2015 Internal Audit Checklist
Quality Management System · Internal Audit Programme · Revision 4

Purpose and Scope
This checklist supports internal auditors in verifying that the quality management system (QMS) conforms to ISO 9001:2015 and to the organisation's own requirements, and that it is effectively implemented and maintained. It covers clauses 4 to 10. Record objective evidence for every question: document references, records sampled, people interviewed.

How to Use This Checklist
For each question mark C (conforming), OFI (opportunity for improvement), Minor NC or Major NC. A Major nonconformity is the absence or total breakdown of a required process; a Minor nonconformity is a single lapse. Every nonconformity needs a corrective action request (CAR) raised within five working days of the closing meeting.

Clause 4 — Context of the Organization
4.1 Has the organisation determined the external and internal issues relevant to its purpose and strategic direction? Are they reviewed at least annually?
4.2 Are the interested parties and their relevant requirements identified (customers, regulators, suppliers, employees)?
4.3 Is the scope of the QMS documented, including products and services covered and any justification for requirements that are not applicable?
4.4 Are the QMS processes, their inputs, outputs, sequence, interaction, owners and performance indicators determined?

Clause 5 — Leadership
5.1 Can top management show how it takes accountability for the effectiveness of the QMS?
5.2 Is the quality policy documented, communicated, understood and available to interested parties?
5.3 Are responsibilities and authorities for relevant roles assigned and communicated?

Clause 6 — Planning
6.1 Are risks and opportunities identified, with actions planned and their effectiveness evaluated?
6.2 Are quality objectives measurable, monitored and consistent with the quality policy? Sample at least three objectives and their latest results.
6.3 Are changes to the QMS planned, considering their purpose, consequences and resources?

Clause 7 — Support
7.1 Are resources, infrastructure and the work environment adequate? Are monitoring and measuring resources calibrated, with calibration status identified?
7.2 Are competence requirements defined for each role, and are training records complete? Sample five employees.
7.3 Are people aware of the quality policy, relevant objectives and the implications of not conforming?
7.5 Is documented information controlled: approval, version, distribution, retention and protection from unintended changes?

Clause 8 — Operation
8.2 Are customer requirements reviewed before committing to supply? Sample three recent orders.
8.4 Are external providers evaluated, selected and re-evaluated against defined criteria? Is the approved supplier list current?
8.5 Is production and service provision carried out under controlled conditions, with traceability where required?
8.6 Is the release of products authorised, with evidence of conformity to acceptance criteria?
8.7 Are nonconforming outputs identified and controlled to prevent unintended use or delivery?

Clause 9 — Performance Evaluation
9.1 Is customer satisfaction monitored, and are the results analysed and acted upon?
9.2 Is the internal audit programme planned on the basis of process importance, changes and previous results? Are auditors independent of the work audited?
9.3 Are management reviews held at planned intervals with all required inputs and documented outputs?

Clause 10 — Improvement
10.2 When a nonconformity occurs, is the root cause determined, corrective action taken and its effectiveness reviewed?
10.3 Is there evidence of continual improvement of the suitability, adequacy and effectiveness of the QMS?

Closing Meeting
Present findings, confirm the classification of each nonconformity with the process owner, agree dates for corrective actions and record attendance. The audit report is issued within ten working days.
`

const productFAQ = `Nimbus Notes — Product FAQ
Everything customers ask us about Nimbus Notes, the note-taking app that syncs across your devices.

General
What is Nimbus Notes?
Nimbus Notes is a note-taking app for iPhone, iPad, Android, Windows, macOS and the web. Notes can contain text, checklists, images, audio recordings and PDF attachments, and they sync automatically across all your devices.

Which plans are available?
Free: up to 3 devices, 100 MB of uploads per month, and notes history for 7 days.
Plus ($4.99 per month or $49 per year): unlimited devices, 10 GB of uploads per month, offline notebooks and 90 days of notes history.
Teams ($8 per user per month, billed annually): everything in Plus, shared workspaces, admin console, single sign-on (SAML) and priority support.

Is there a free trial of Plus?
Yes. Every new account can try Plus free for 14 days. No payment details are needed to start the trial, and the account returns to Free automatically at the end unless you subscribe.

Account and Billing
How do I cancel my subscription?
Open Settings → Account → Subscription and choose Cancel. You keep Plus features until the end of the period you have paid for. Subscriptions bought through the App Store or Google Play must be cancelled there.

Do you offer refunds?
Annual subscriptions bought on our website can be refunded in full within 30 days of purchase. Monthly subscriptions are not refunded, but you can cancel at any time.

Can I change the e-mail address of my account?
Yes: Settings → Account → E-mail. We send a confirmation link to the new address; the change takes effect when you click it.

Sync and Offline Use
Why are my notes not syncing?
Check that you are signed in to the same account on every device and that the device is online. Sync status is shown at the bottom of the notebook list. If a note shows "Conflict", both versions are kept and you can choose which one to keep.

Can I use Nimbus Notes offline?
All plans can create and edit notes offline; changes sync when the device reconnects. With Plus and Teams you can also mark whole notebooks as "Available offline" so that attachments are downloaded in advance.

Security and Privacy
Is my data encrypted?
Notes are encrypted in transit (TLS 1.3) and at rest (AES-256). Plus and Teams customers can additionally protect individual notes with a passphrase; those notes are encrypted end to end and we cannot recover them if the passphrase is lost.

Where is my data stored?
In data centres in the European Union (Frankfurt and Dublin). Teams customers can request a data processing agreement from our support team.

Troubleshooting
The app crashes when I open a large PDF. What can I do?
Update to the latest version (3.8 or later), which streams large PDFs instead of loading them at once. If the problem continues, send us the PDF's size and your device model through Help → Contact Support.

How do I restore a deleted note?
Deleted notes stay in Trash for 30 days. Open Trash, select the note and choose Restore. After 30 days, Plus and Teams customers can still recover notes from notes history within its retention period.

Contact
Support is available by e-mail at support@nimbusnotes.example, Monday to Friday, 8:00–18:00 CET. Teams customers also have a priority phone line listed in the admin console.
`

const pricingNotes = `Confidential Pricing Notes
Internal only — do not share outside the sales leadership team.

Fiscal Year Pricing Guidance
List prices stay unchanged this year: Plus at $4.99 per month and Teams at $8 per user per month. Field discounts are capped at 15% for deals under 100 seats and 25% for deals of 100 seats or more. Anything above requires approval from the VP of Sales.

Competitive Deals
When competing against a vendor that bundles note-taking into a productivity suite, offer the first three months free instead of a deeper discount: it protects the list price in renewals.

Renewal Strategy
Customers renewing before the end of Q2 keep their current price for one more year. Price increases for legacy plans (grandfathered at $3.99) take effect at their next renewal after 1 September, with 60 days' written notice.

Floor Prices
Teams: never below $5.60 per user per month. Plus annual: never below $39. These floors are confidential and must not appear in proposals.
`
