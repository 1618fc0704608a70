/** Early settlement of a premium-finance loan: quote, confirm and collect the payoff (README "Premium finance"). */
export {};
