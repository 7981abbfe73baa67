"""Adapters: parse input, call the service, render the result, map errors. No logic of their own."""
