"""The EKS training assistant: cited answers and quizzes on training models on Amazon EKS."""

__version__ = "0.1.0"
