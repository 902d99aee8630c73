"""From a question to a cited answer: the assistant, its answerability decision (with definitions and
exemplars), excerpts, conversations, the knowledge gaps it records, and the thread and batcher that run the
model."""
