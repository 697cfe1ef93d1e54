"""The synthetic worlds that photograph the kit: renderers apart from the product's path."""
