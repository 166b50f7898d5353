// analytics
